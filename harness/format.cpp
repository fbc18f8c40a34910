#include "harness/format.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace mml {

std::string shape_text(Shape s) {
    if (s.M == s.N && s.N == s.K) return std::to_string(s.M) + "^3";
    return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

std::string fixed(double x, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

namespace {

// A UTF-8 continuation byte (10xxxxxx): part of the character before it.
bool continues(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The bytes of `text`'s first `columns` characters.
std::size_t bytes_of_columns(const std::string& text, int columns) {
    std::size_t i = 0;
    for (int c = 0; i < text.size() && c < columns; ++c)
        do ++i;
        while (i < text.size() && continues(text[i]));
    return i;
}

}  // namespace

int display_width(const std::string& text) {
    int width = 0;
    for (char c : text) width += !continues(c);
    return width;
}

std::string pad_right(const std::string& text, int width) {
    return text + std::string(std::size_t(std::max(0, width - display_width(text))), ' ');
}

std::string pad_left(const std::string& text, int width) {
    return std::string(std::size_t(std::max(0, width - display_width(text))), ' ') + text;
}

std::string shorten(const std::string& text, int width) {
    if (display_width(text) <= width) return text;
    if (width <= 0) return "";
    const std::string head = text.substr(0, bytes_of_columns(text, width - 1));  // room for the "…"
    std::size_t cut = head.find_last_of(' ');
    // A word cut in two reads worse than a shorter line; the words' separator
    // (", " or ": ") goes with the cut.
    if (cut == std::string::npos || cut == 0) cut = head.size();
    else if (text[head.size()] == ' ') cut = head.size();
    std::string kept = head.substr(0, cut);
    while (!kept.empty() && (kept.back() == ' ' || kept.back() == ',' || kept.back() == ':' || kept.back() == ';'))
        kept.pop_back();
    return kept + "…";
}

std::vector<std::string> wrap(const std::string& text, int width, int indent) {
    if (width <= 0 || display_width(text) <= width) return {text};
    const std::string margin(std::size_t(std::max(0, std::min(indent, width - 1))), ' ');
    std::vector<std::string> lines;
    std::string line;  // the line being filled; its words keep the spaces between them
    bool fresh = true;  // nothing on `line` but its indent yet
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t start = std::min(text.find_first_not_of(' ', i), text.size());
        const std::size_t end = std::min(text.find(' ', start), text.size());
        std::string gap = text.substr(i, start - i), word = text.substr(start, end - start);
        i = end;
        if (word.empty()) break;
        if (fresh && lines.empty()) {  // the text's own leading indent
            line = gap.substr(0, std::size_t(width - 1));
        } else if (!fresh && display_width(line) + display_width(gap) + display_width(word) > width) {
            lines.push_back(line);
            line = margin;
        } else if (!fresh) {
            line += gap;
        }
        fresh = false;
        while (display_width(line) + display_width(word) > width) {  // a word wider than a line
            const std::size_t n = bytes_of_columns(word, width - display_width(line));
            lines.push_back(line + word.substr(0, n));
            word = word.substr(n);
            line = margin;
        }
        line += word;
    }
    if (!fresh) lines.push_back(line);
    return lines;
}

int terminal_columns() {
    if (!isatty(STDOUT_FILENO)) return kSlideColumns;
    winsize size{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    if (const char* columns = std::getenv("COLUMNS")) {
        const int n = std::atoi(columns);
        if (n > 0) return n;
    }
    return kSlideColumns;
}

}  // namespace mml
