"""--similarity's view of a program: C, C++ and CUDA source as a list of
normalized tokens, each with the span of the source it came from.

The lexer is written here, in Python, not taken from a package (tree-sitter's
C++ grammar and libclang both come as PyPI wheels): similarity needs tokens,
not a syntax tree, and a lexer of C++'s tokens is short and fully tested
here, while a wheel is one more thing set-up must download, pin and keep
working offline on every instructor's machine. So --similarity needs nothing
beyond Python's standard library. It knows comments (// and /* */), string
literals (with prefixes and raw strings), character literals, numbers (C++'s
preprocessing numbers: 1e-5f, 0x1p3, 1'000), identifiers, punctuators
(longest match) and preprocessor lines (dropped whole, continuations too).

What a student changes to hide a copy, and the program does not care about,
is normalized away (tokens(); the tests in tests/grading/test_similarity.py
try each edit):
  - names and literals: every identifier is "ID", every number "NUM", every
    string "STR" (keywords, CUDA's built-ins and punctuators stay);
  - comments, blank lines, layout, preprocessor lines, `std::`, and the
    qualifiers that do not change the computation (const, inline, static,
    __restrict__, ...);
  - integer type names: int, long, unsigned long long, size_t,
    std::int64_t, ... and `auto` are one token; float and double another;
  - increments: `++i`, `i++`, `i += 1` and `i = i + 1` are one form, and
    `x = x + y` is `x += y` (for + - * / % & | ^, where the rest of the
    expression binds as tightly as the operator), as is `x = y + x` (for +
    and *);
  - loops: `for (init; cond; step) body` becomes `init; while (cond)
    { body step; }`, and the body of every for, while, if and else is a
    braced block;
  - the operands of + and * in an expression of names, members
    (blockIdx.y), numbers, +, - and * (index arithmetic: `i*K + k` is
    `k + K*i`) are sorted;
  - declaration order: a run of declarations of variables of built-in types
    is sorted (one that names a variable declared before it in the run stays
    after it);
  - dead statements: `;` alone, `(void)x;`, `x = x;`, `x += 0;`, `x *= 1;`,
    an unused variable of a built-in type whose value has no effect, and
    the braces of a block that is a statement of its own are dropped.
"""

import re

KEYWORDS = set("""alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class concept
const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do
double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable
namespace new noexcept nullptr operator private protected public register reinterpret_cast requires return short
signed sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef
typeid typename union unsigned using virtual void volatile wchar_t while""".split())
# CUDA's and OpenMP's names that say what a kernel does: kept as themselves, not folded into ID.
BUILTINS = set("""threadIdx blockIdx blockDim gridDim warpSize __syncthreads __syncwarp __shfl_down_sync
__shfl_sync __shfl_xor_sync __global__ __device__ __host__ __shared__ __constant__ __launch_bounds__
__ldg __fmaf_rn fmaf""".split())
# Integer types (one token "INT", as `auto`): which one a student writes is no evidence of anything.
INT_TYPES = set("""int long short unsigned signed size_t ssize_t ptrdiff_t intptr_t uintptr_t int8_t int16_t
int32_t int64_t uint8_t uint16_t uint32_t uint64_t index_t auto""".split())
FLOAT_TYPES = {"float", "double"}
# Words dropped: they change what the compiler may assume, not what the code computes.
DROPPED = {"const", "constexpr", "inline", "static", "__restrict__", "__restrict", "restrict", "register",
           "__forceinline__", "noexcept", "typename"}

PUNCTUATORS = sorted(""">>= <<= <=> ... ->* -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= :: .* ##
{ } [ ] ( ) ; : ? . , + - * / % ^ & | ~ ! = < > #""".split(), key=len, reverse=True)
_PUNCT = re.compile("|".join(re.escape(p) for p in PUNCTUATORS))
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z_0-9$]*")
_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*")
_RAW = re.compile(r'(?:u8|u|U|L)?R"([^ ()\\\t\n]{0,16})\(')
_STRING_PREFIX = re.compile(r'(?:u8|u|U|L)?["\']')


class Token:
    """One token: its category, cat (ID NUM STR CHR KW PUNCT TYPE), its text, its span [start, end) in the source."""
    __slots__ = ("cat", "text", "start", "end")

    def __init__(self, cat, text, start, end):
        self.cat, self.text, self.start, self.end = cat, text, start, end

    def __repr__(self):
        return f"{self.cat}:{self.text}"


def lex(src):
    """The tokens of src, comments, whitespace and preprocessor lines left out. Never fails: a character
    that starts no token is a PUNCT of its own, an unterminated comment or literal runs to the end."""
    out, i, n = [], 0, len(src)
    line_start = True  # only whitespace since the last newline: a '#' here starts a preprocessor line
    while i < n:
        c = src[i]
        if c == "\n":
            line_start, i = True, i + 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and src.startswith("\n", i + 1):  # a line continuation
            i += 2
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == "#" and line_start:  # a preprocessor line, with its continuations
            j = i
            while True:
                j = src.find("\n", j)
                if j < 0 or src[j - 1] != "\\":
                    break
                j += 1
            i = n if j < 0 else j
            continue
        line_start = False
        m = _RAW.match(src, i)
        if m:
            close = ")" + m.group(1) + '"'
            j = src.find(close, m.end())
            j = n if j < 0 else j + len(close)
            out.append(Token("STR", src[i:j], i, j))
            i = j
            continue
        m = _STRING_PREFIX.match(src, i)
        if m:
            quote = src[m.end() - 1]
            j = m.end()
            while j < n and src[j] != quote and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(Token("STR" if quote == '"' else "CHR", src[i:j], i, j))
            i = j
            continue
        m = _IDENT.match(src, i)
        if m:
            word = m.group()
            out.append(Token("KW" if word in KEYWORDS else "ID", word, i, m.end()))
            i = m.end()
            continue
        m = _NUMBER.match(src, i)
        if m:
            out.append(Token("NUM", m.group(), i, m.end()))
            i = m.end()
            continue
        m = _PUNCT.match(src, i)
        j = m.end() if m else i + 1
        out.append(Token("PUNCT", src[i:j], i, j))
        i = j
    return out


def _clean(toks):
    """Drops `std::` and the DROPPED words; one INT for a run of integer type names (unsigned long long,
    std::int64_t), FP for float and double; the text of every other token kept for the passes below."""
    out = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.text == "std" and i + 1 < len(toks) and toks[i + 1].text == "::":
            i += 2
            continue
        if t.text in DROPPED:
            i += 1
            continue
        if t.text in INT_TYPES:
            j = i
            while j < len(toks) and toks[j].text in INT_TYPES:
                j += 1
            out.append(Token("TYPE", "INT", t.start, toks[j - 1].end))
            i = j
            continue
        if t.text in FLOAT_TYPES:
            out.append(Token("TYPE", "FP", t.start, t.end))
        else:
            out.append(t)
        i += 1
    return out


_OPEN, _CLOSE = {"(": ")", "[": "]", "{": "}"}, {")", "]", "}"}
# Nesting deeper than this (loops in loops, parentheses in parentheses) is left as written: a file made to be
# deep costs neither the stack nor quadratic time.
MAX_DEPTH = 40


def _match(toks, i):
    """The index of the bracket closing toks[i] (an opening one), or len(toks)."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text in _OPEN:
            depth += 1
        elif toks[j].text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _expr_end(toks, i, stops=(";", ",")):
    """The index of the first token at or after i, outside brackets, that ends an expression."""
    depth = 0
    for j in range(i, len(toks)):
        x = toks[j].text
        if x in _OPEN:
            depth += 1
        elif x in _CLOSE:
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0 and x in stops:
            return j
    return len(toks)


def _lvalue_end(toks, i):
    """The end of an lvalue starting at i: a name with subscripts (x, c[i][j]), or i when there is none."""
    if i >= len(toks) or toks[i].cat != "ID":
        return i
    j = i + 1
    while j < len(toks) and toks[j].text == "[":
        j = _match(toks, j) + 1
    return min(j, len(toks))


# Operators that bind less tightly than each compound operator's own: `x = x * y + z` is not `x *= y + z`.
_LOOSER = {"+": {"<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&", "||", "?", "=", "<=>"}}
_LOOSER["-"] = _LOOSER["+"] | {"+", "-"}
_LOOSER["*"] = _LOOSER["-"] | {"*", "/", "%"}
_LOOSER["/"] = _LOOSER["%"] = _LOOSER["*"]
_LOOSER["&"] = {"^", "|", "&&", "||", "?", "=", "==", "!="}
_LOOSER["^"] = {"|", "&&", "||", "?", "="}
_LOOSER["|"] = {"&&", "||", "?", "="}
_AFTER_STATEMENT = {";", "{", "}", "(", ",", ")", "else", "do"}


def _assignments(toks):
    """`x = x op y` as `x op= y`; `++x`, `x++`, `x -= -1`... as `x += 1` where the value is not used (a
    statement of its own, a for's step, a comma's operand)."""
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        prev = out[-1].text if out else ";"
        if prev in _AFTER_STATEMENT and t.text in ("++", "--"):  # ++x
            end = _lvalue_end(toks, i + 1)
            if end > i + 1 and (end == len(toks) or toks[end].text in (";", ")", ",")):
                out += toks[i + 1:end] + _plus_one(t)
                i = end
                continue
        if prev in _AFTER_STATEMENT and t.cat == "ID":
            end = _lvalue_end(toks, i)
            nxt = toks[end].text if end < len(toks) else ""
            after = toks[end + 1].text if end + 1 < len(toks) else ";"
            if nxt in ("++", "--") and after in (";", ")", ","):  # x++
                out += toks[i:end] + _plus_one(toks[end])
                i = end + 1
                continue
            if nxt == "=":  # x = x op y
                lhs = [x.text for x in toks[i:end]]
                k = end + 1
                same = [x.text for x in toks[k:k + len(lhs)]] == lhs
                op = toks[k + len(lhs)].text if same and k + len(lhs) < len(toks) else ""
                if op in _LOOSER:
                    rest = k + len(lhs) + 1
                    stop = _expr_end(toks, rest)
                    depth, loose = 0, False
                    for x in toks[rest:stop]:
                        depth += x.text in _OPEN
                        depth -= x.text in _CLOSE
                        loose |= depth == 0 and x.text in _LOOSER[op]
                    if not loose and stop > rest:
                        o = toks[k + len(lhs)]
                        out += toks[i:end] + [Token("PUNCT", op + "=", toks[end].start, o.end)]
                        i = rest
                        continue
                elif len(lhs) and op == "":  # x = y + x: the same, for + and *
                    stop = _expr_end(toks, k)
                    o = stop - len(lhs) - 1
                    if o > k and toks[o].text in ("+", "*") and [x.text for x in toks[o + 1:stop]] == lhs:
                        depth, loose = 0, False
                        for x in toks[k:o]:
                            depth += x.text in _OPEN
                            depth -= x.text in _CLOSE
                            loose |= depth == 0 and x.text in _LOOSER[toks[o].text]
                        if not loose and depth == 0:
                            out += toks[i:end] + [Token("PUNCT", toks[o].text + "=", toks[end].start, toks[end].end)]
                            out += toks[k:o]
                            i = stop
                            continue
        out.append(t)
        i += 1
    return out


def _plus_one(op):
    """`+= 1` (or `-= 1`) in place of the ++ (--) token op."""
    return [Token("PUNCT", op.text[0] + "=", op.start, op.end), Token("NUM", "1", op.start, op.end)]


def _statement_end(toks, i, depth=0):
    """The index just past the statement starting at toks[i]."""
    if i >= len(toks):
        return i
    if depth > MAX_DEPTH:
        return min(_expr_end(toks, i, (";",)) + 1, len(toks))
    x = toks[i].text
    if x == "{":
        return _match(toks, i) + 1
    if x in ("for", "while", "if", "switch") and i + 1 < len(toks) and toks[i + 1].text == "(":
        end = _statement_end(toks, _match(toks, i + 1) + 1, depth + 1)
        if x == "if" and end < len(toks) and toks[end].text == "else":
            end = _statement_end(toks, end + 1, depth + 1)
        return end
    if x == "do":
        end = _statement_end(toks, i + 1, depth + 1)  # the body, then `while (cond);`
        return _expr_end(toks, end, (";",)) + 1
    return min(_expr_end(toks, i, (";",)) + 1, len(toks))


def _loops(toks, depth=0):
    """for loops as while loops, every body of for, while, if and else braced (MAX_DEPTH levels deep)."""
    if depth > MAX_DEPTH:
        return toks
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t.text in ("for", "while", "if") and i + 1 < len(toks) and toks[i + 1].text == "(":
            close = _match(toks, i + 1)
            body_end = _statement_end(toks, close + 1)
            body = _loops(toks[close + 1:body_end], depth + 1)
            if body and body[0].text == "{" and _match(body, 0) == len(body) - 1:
                body = body[1:-1]
            header = toks[i + 2:close]
            parts = _split_header(header) if t.text == "for" else None
            if parts:  # for (init; cond; step) body: init; while (cond) { body step; }
                init, cond, step = (_loops(p, depth + 1) for p in parts)
                semi = Token("PUNCT", ";", t.start, t.end)
                out += init + [semi, Token("KW", "while", t.start, t.end), toks[i + 1]] + cond
                out += [toks[close], Token("PUNCT", "{", t.start, t.end)] + body + step
                out += ([semi] if step else []) + [Token("PUNCT", "}", t.start, t.end)]
            else:
                out += [t, toks[i + 1]] + _loops(header, depth + 1)
                out += [toks[close], Token("PUNCT", "{", t.start, t.end)]
                out += body + [Token("PUNCT", "}", t.start, t.end)]
            i = body_end
            continue
        if t.text == "else" and not (i + 1 < len(toks) and toks[i + 1].text == "if"):
            body_end = _statement_end(toks, i + 1)
            body = _loops(toks[i + 1:body_end], depth + 1)
            if body and body[0].text == "{" and _match(body, 0) == len(body) - 1:
                body = body[1:-1]
            out += [t, Token("PUNCT", "{", t.start, t.end)] + body + [Token("PUNCT", "}", t.start, t.end)]
            i = body_end
            continue
        out.append(t)
        i += 1
    return out


def _split_header(header):
    """A for's (init, cond, step), or None for a range-for (`for (x : v)`)."""
    a = _expr_end(header, 0, (";",))
    if a >= len(header):
        return None
    b = _expr_end(header, a + 1, (";",))
    return header[:a], header[a + 1:b], header[b + 1:]


# The sums and products sorted: only after one of these (so `x / i*K` or `*p + 1` is never split wrongly).
_SUM_BEFORE = {"[", "(", ",", "=", "+=", "-=", "*=", "/=", "return", ";", "{", "}", "<", ">", "<=", ">=",
               "==", "!=", "?", ":", "&&", "||"}
_SUM_AFTER = {"]", ")", ",", ";", "<", ">", "<=", ">=", "==", "!=", "?", ":", "&&", "||", "}"}


def _sums(toks):
    """The operands of + and * sorted in every expression made only of names, numbers, + - * and
    parentheses, standing alone (see _SUM_BEFORE and _SUM_AFTER)."""
    out, i = [], 0
    while i < len(toks):
        if (not out or out[-1].text in _SUM_BEFORE) and (toks[i].cat in ("ID", "NUM") or toks[i].text == "("):
            parsed = _parse_sum(toks, i)
            if parsed:
                tree, end = parsed
                if end < len(toks) and toks[end].text in _SUM_AFTER and end - i > 1:
                    out += _emit_sum(tree)
                    i = end
                    continue
        out.append(toks[i])
        i += 1
    return out


def _parse_sum(toks, i, depth=0):
    """(a sum tree [(sign, [factor, ...]), ...], end) or None; a factor is a token or a sum tree."""
    if depth > MAX_DEPTH:
        return None
    terms, sign = [], "+"
    while True:
        factors = []
        while True:
            if i >= len(toks):
                return None
            t = toks[i]
            if t.text == "(":
                inner = _parse_sum(toks, i + 1, depth + 1)
                if not inner or inner[1] >= len(toks) or toks[inner[1]].text != ")":
                    return None
                factors.append(inner[0])
                i = inner[1] + 1
            elif t.cat in ("ID", "NUM"):
                j = i + 1  # a member of a member (blockIdx.y, job.K) is one factor, as a name is
                while j + 1 < len(toks) and toks[j].text in (".", "->") and toks[j + 1].cat == "ID":
                    j += 2
                if j < len(toks) and toks[j].text in ("(", "[", ".", "->", "::", "++", "--"):
                    return None  # a call, a subscript: not a plain name
                factors.append(t if j == i + 1 else tuple(toks[i:j]))
                i = j
            else:
                return None
            if i < len(toks) and toks[i].text == "*":
                i += 1
                continue
            break
        terms.append((sign, factors))
        if i < len(toks) and toks[i].text in ("+", "-"):
            sign = toks[i].text
            i += 1
            continue
        return terms, i


def _symbol(t):
    return _symbol_of(t)


def _emit_sum(tree):
    """The tokens of a sum tree, every sum's terms and every product's factors in one order (each subtree
    emitted once: linear in its size)."""
    terms = []
    for sign, factors in tree:
        emitted = []
        for f in factors:
            if isinstance(f, list):
                inner = _emit_sum(f)
                emitted.append((" ".join(map(_symbol, inner)), inner, len(f) > 1))
            elif isinstance(f, tuple):
                emitted.append((" ".join(map(_symbol, f)), list(f), False))
            else:
                emitted.append((_symbol(f), [f], False))
        emitted.sort(key=lambda e: e[0])
        toks = []
        for _, inner, is_sum in emitted:
            if toks:
                toks.append(Token("PUNCT", "*", 0, 0))
            if is_sum and len(emitted) > 1:  # parentheses only where they change the meaning
                toks += [Token("PUNCT", "(", 0, 0)] + inner + [Token("PUNCT", ")", 0, 0)]
            else:
                toks += inner
        terms.append((sign != "+", " ".join(map(_symbol, toks)), sign, toks))
    terms.sort(key=lambda t: t[:2])
    out = []
    for _, _, sign, toks in terms:
        if out or sign == "-":
            out.append(Token("PUNCT", sign, 0, 0))
        out += toks
    _spans(out)
    return out


def _spans(toks):
    """Tokens made up (0, 0) take the span of their neighbours (for the report's marks)."""
    last = None
    for t in toks:
        if t.end:
            last = t
        elif last is not None:
            t.start = t.end = last.end
    for t in reversed(toks):
        if t.end:
            last = t
        elif last is not None:
            t.start = t.end = last.start


_STATEMENT_START = {";", "{", "}"}
# Tokens of an expression that has no effect but its value: names, numbers, subscripts, members, arithmetic
# (no call, no assignment, no increment).
_PURE = {"[", "]", ".", "->", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~", "!", "<", ">", "<=",
         ">=", "==", "!=", "&&", "||", "?", ":"}
_NOOP_STEP = {("+=", "0"), ("-=", "0"), ("|=", "0"), ("^=", "0"), ("*=", "1"), ("/=", "1")}


def _pure(toks):
    """Whether toks (an expression) computes a value and nothing else (its `(` only after an operator: no call)."""
    for n, t in enumerate(toks):
        if t.cat in ("ID", "NUM", "TYPE", "CHR", "STR") or t.text in _PURE:
            continue
        if t.text in ("(", ")") and (t.text == ")" or n == 0 or toks[n - 1].cat not in ("ID",)):
            continue
        return False
    return True


# The longest statement _dead and _declaration_order look at (tokens): a longer one is left as written, so
# that a statement nested in a statement nested in ... (10,000 loops deep) is never scanned once per level.
STATEMENT_MAX = 100


def _short_statement_end(toks, i):
    """The index of the `;` ending the statement at toks[i] if it is STATEMENT_MAX tokens or fewer, else None."""
    piece = toks[i:i + STATEMENT_MAX]
    end = _expr_end(piece, 0, (";",))
    return i + end if end < len(piece) and piece[end].text == ";" else None


def _declaration(toks, i):
    """(end, name, where its initializer starts) of a declaration of a variable of a built-in type at toks[i]
    (`float x = e;`, `INT* p;`, `float a[4];`), end just past its `;`; None for anything else (a function's
    definition included)."""
    if i >= len(toks) or not (toks[i].cat == "TYPE" or toks[i].text in ("bool", "char")):
        return None
    j = i + 1
    while j < len(toks) and toks[j].text in ("*", "&"):
        j += 1
    if j + 1 >= len(toks) or toks[j].cat != "ID" or toks[j + 1].text not in ("=", ";", "[", "{", ","):
        return None
    end = _short_statement_end(toks, i)
    return None if end is None else (end + 1, toks[j].text, j + 1 + (toks[j + 1].text == "="))


def _dead(toks):
    """Statements that do nothing, as a student inserts them to pad a copy, dropped: `;` alone, `(void)x;`,
    `x = x;`, `x += 0;` (and -= 0, *= 1, ...), and a variable of a built-in type that nothing else names,
    declared with a value that has no effect of its own (`int unused = 3;`, `float t;`); the braces of a
    block that is a statement of its own (`{ int i = 0; while ... }`), its statements kept."""
    uses, closing, stack = {}, {}, []
    for n, t in enumerate(toks):
        if t.cat == "ID":
            uses[t.text] = uses.get(t.text, 0) + 1
        elif t.text == "{":
            stack.append(n)
        elif t.text == "}" and stack:
            closing[stack.pop()] = n  # each brace's partner, in one pass (10,000 nested blocks stay linear)
    out, i, unbraced = [], 0, set()
    while i < len(toks):
        t = toks[i]
        if i in unbraced:  # the end of a block dropped below
            i += 1
            continue
        if (out[-1].text if out else ";") in _STATEMENT_START:
            if t.text == ";":
                i += 1
                continue
            if t.text == "{":  # a block of its own (not a body): its statements as if written without it
                unbraced.add(closing.get(i))
                i += 1
                continue
            end = _short_statement_end(toks, i) if t.cat in ("ID", "TYPE") or t.text == "(" else None
            body = toks[i:end] if end is not None else []
            texts = [x.text for x in body]
            if body and texts[:3] == ["(", "void", ")"] and _pure(body[3:]):
                i = end + 1
                continue
            lv = _lvalue_end(toks, i) - i if body else 0
            if lv and lv + 1 < len(texts) and _pure(body[:lv]):
                rest = texts[lv:]
                if (rest[0] == "=" and rest[1:] == texts[:lv]) or tuple(rest) in _NOOP_STEP:
                    i = end + 1
                    continue
            decl = _declaration(toks, i)
            if decl and uses.get(decl[1], 0) == 1 and _pure(toks[decl[2]:decl[0] - 1]):
                i = decl[0]
                continue
        out.append(t)
        i += 1
    return out


def _symbol_of(t):
    """The token as compared: ID, NUM, STR, CHR for names and literals (CUDA's built-ins as themselves), INT
    and FP for types, the text of keywords and punctuators."""
    if t.cat == "ID" and t.text in BUILTINS:
        return t.text
    return t.cat if t.cat in ("ID", "NUM", "STR", "CHR") else t.text


def _declaration_order(toks):
    """Every run of consecutive declarations of variables of built-in types (`float a = x; INT n = y;`) in one
    order, so that declaring them in another order changes nothing: sorted by their tokens as compared, except
    that a declaration naming a variable declared before it in the run starts a new run (it must stay after)."""
    out, i = [], 0
    while i < len(toks):
        if (out[-1].text if out else ";") in _STATEMENT_START and _declaration(toks, i):
            run, names = [], set()
            while i < len(toks) and (decl := _declaration(toks, i)):
                end, name, _ = decl
                if run and any(t.cat == "ID" and t.text in names for t in toks[i:end]):
                    break
                run.append(toks[i:end])
                names.add(name)
                i = end
            run.sort(key=lambda d: [_symbol_of(t) for t in d])
            for d in run:
                out += d
            continue
        out.append(toks[i])
        i += 1
    return out


def tokens(src):
    """src's normalized tokens: [(symbol, start, end)], symbol the token as compared (ID, NUM, STR,
    INT, FP, a keyword or a punctuator), [start, end) the source it stands for."""
    # _dead twice: `float t = 1; t = t;` leaves t unused once `t = t;` is gone.
    toks = _declaration_order(_sums(_dead(_dead(_loops(_assignments(_clean(lex(src))))))))
    return [(_symbol_of(t), t.start, t.end) for t in toks]
