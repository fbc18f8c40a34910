// How the harness writes numbers and shapes in tables, verdicts and errors,
// and how it fits text into a given number of terminal columns.
#pragma once

#include <string>
#include <vector>

#include "cpu/matrix.h"

namespace mml {

std::string shape_text(Shape s);  // "512^3" or "300x200x100" (M x N x K)
std::string fixed(double x, int digits);  // x with `digits` digits after the point

// Fitting text into columns. Widths count what the terminal shows (one column
// per character, as for every character the harness prints: ASCII, "x", "~",
// the check mark), not bytes: "✓" is 3 bytes of UTF-8 and 1 column.
int display_width(const std::string& text);
// `text` padded with spaces to `width` columns, on the right (left-aligned
// text) or on the left (right-aligned numbers); text already wider is kept.
std::string pad_right(const std::string& text, int width);
std::string pad_left(const std::string& text, int width);
// `text` in at most `width` columns: cut after the last whole word that fits,
// marked with "…" (cut inside the word when no whole word fits).
std::string shorten(const std::string& text, int width);
// `text` as lines of at most `width` columns, broken between words; lines
// after the first start with `indent` spaces (a label's hanging indent). A
// word longer than a line is cut. width <= 0: one line, as given.
std::vector<std::string> wrap(const std::string& text, int width, int indent = 0);

// The columns a lecture's slide holds: at a font a room can read, a projected
// terminal shows about 100 columns (issue #40). `make demo` fits its output
// to this unless the terminal is wider.
constexpr int kSlideColumns = 100;
// The columns of the terminal stdout writes to: its size (TIOCGWINSZ), else
// $COLUMNS; kSlideColumns when stdout is not a terminal (a file, a pipe), so
// that saved output does not depend on the window it was made in.
int terminal_columns();

}  // namespace mml
