"""Function sizes of C++ source measured from its tokens, the way clang-tidy's readability-function-size
counts them (docs/LAYERING.md, "The function-size check"), without compiling anything.

clang-tidy's count, which this file reproduces:
  - every function definition with a body: free functions, member functions (in or out of their class,
    in class templates too, in local classes), constructors, destructors, operators, explicit
    specialisations ('f<int>');
  - not lambdas: their lines count in the function that holds them, as part of its body;
  - the size is the line of the body's '}' minus the line of its '{' (of 'try' and the last handler's
    '}' for a function-try-block), comments and blank lines included;
  - a body with nothing in it is not reported (clang-tidy skips functions of no statements);
  - the name is unqualified ('run_kist', not 'Scheduler::run_kist'; '~S', 'operator()', 'operator bool'),
    but a class template's constructor is 'Box<T, N>';
  - not a function whose name is on a line a NOLINT comment covers (clang-tidy suppresses it there).
Preprocessor directives are dropped; of a conditional's branches only the first is read (the one a
Linux build compiles in this tree), except after '#if 0'. Only the file's own function-like macros are
expanded, and only for the functions they write (reported at the invocation, as clang-tidy does).
`function_size.py --compare` checks this against clang-tidy over the whole tree.
Python 3 standard library only.
"""
from __future__ import annotations

import fnmatch
import re
from typing import NamedTuple

_TOKEN_RE = re.compile(r"""
   (?P<nl>\n)
  |(?P<ws>[ \t\r\f\v]+|\\\n)
  |(?P<lc>//(?:[^\n\\]|\\.)*)
  |(?P<bc>/\*.*?\*/)
  |(?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^ ()\\\t\n"]{0,16})\()
  |(?P<str>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  |(?P<chr>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])+')
  |(?P<num>\.?[0-9](?:[eEpP][+-]|'[0-9a-zA-Z_]|[0-9a-zA-Z_.])*)
  |(?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  |(?P<p><=>|->\*|\.\.\.|<<=|>>=|::|->|\.\*|==|!=|<=|>=|&&|\|\||<<|\+\+|--|[-+*/%&|^]=|.)
""", re.VERBOSE | re.DOTALL)
_DIRECTIVE_RE = re.compile(r"[ \t]*#[ \t]*(\w*)(.*)")


class Token(NamedTuple):
    text: str
    line: int
    kind: str           # id, num, str, chr, p (punctuation)


class Function(NamedTuple):
    name: str
    line: int           # of the name, where clang-tidy reports it
    size: int           # line of the body's '}' minus line of its '{'


class _Conditionals:
    """Which lines the preprocessor keeps: the first branch of each conditional ('#if 0': the next)."""

    def __init__(self) -> None:
        self.stack: list[tuple[bool, bool]] = []     # (this branch read, some branch of it taken)

    def active(self) -> bool:
        return all(read for read, _ in self.stack)

    def directive(self, name: str, rest: str) -> None:
        if name in ("if", "ifdef", "ifndef"):
            read = not (name == "if" and rest.strip() == "0")
            self.stack.append((read, read))
        elif name in ("elif", "else") and self.stack:
            _, taken = self.stack[-1]
            self.stack[-1] = (not taken, True)
        elif name == "endif" and self.stack:
            self.stack.pop()


def _directive_end(text: str, pos: int) -> int:
    """The end of the directive starting at pos: its line and the lines its backslashes continue onto."""
    while True:
        end = text.find("\n", pos)
        if end < 0:
            return len(text)
        if text[end - 1:end] != "\\" and not (text[end - 2:end] == "\\\r"):
            return end
        pos = end + 1


class Macro(NamedTuple):
    name: str
    params: list[str]
    body: str           # the replacement text, its continuation lines kept


class Source(NamedTuple):
    tokens: list[Token]
    nolint: set[int]            # lines on which clang-tidy's diagnostics are suppressed
    macros: dict[str, Macro]    # function-like macros defined in the file


_DEFINE_RE = re.compile(r"\s*(\w+)\(([^)]*)\)(.*)", re.DOTALL)
_NOLINT_RE = re.compile(r"\bNOLINT(NEXTLINE|BEGIN|END)?\b(\(([^)]*)\))?")


def _suppresses(checks: str | None) -> bool:
    """Whether a NOLINT's check list (none: every check) names readability-function-size."""
    if checks is None:
        return True
    return any(fnmatch.fnmatchcase("readability-function-size", c.strip()) for c in checks.split(","))


def _nolint(comment: str, line: int, nolint: set[int], begun: list[int]) -> None:
    """Records the lines a NOLINT comment at line suppresses, as clang-tidy reads them."""
    for m in _NOLINT_RE.finditer(comment):
        if not _suppresses(m.group(3) if m.group(2) else None):
            continue
        if m.group(1) is None:
            nolint.add(line + comment.count("\n", 0, m.start()))
        elif m.group(1) == "NEXTLINE":
            nolint.add(line + comment.count("\n", 0, m.start()) + 1)
        elif m.group(1) == "BEGIN":
            begun.append(line)
        elif begun:
            nolint.update(range(begun.pop(), line + 1))


def tokenize(text: str) -> Source:
    """The tokens of text with comments, directives and the branches the preprocessor skips removed;
    the NOLINT lines; the function-like macros."""
    tokens: list[Token] = []
    nolint: set[int] = set()
    begun: list[int] = []
    macros: dict[str, Macro] = {}
    cond = _Conditionals()
    pos, line, line_start = 0, 1, True
    while pos < len(text):
        if line_start:
            d = _DIRECTIVE_RE.match(text, pos)
            if d and text[pos:d.end()].lstrip(" \t").startswith("#"):
                end = _directive_end(text, pos)
                cond.directive(d.group(1), text[d.start(2):end])
                define = _DEFINE_RE.match(text, d.start(2), end) if d.group(1) == "define" else None
                if define and cond.active():
                    params = [x.strip() for x in define.group(2).split(",") if x.strip()]
                    macros[define.group(1)] = Macro(define.group(1), params, define.group(3))
                line += text.count("\n", pos, end)
                pos = end
                continue
        m = _TOKEN_RE.match(text, pos)
        kind = m.lastgroup if m.lastgroup != "delim" else "raw"
        end = m.end()
        if kind == "raw":
            close = text.find(")" + m.group("delim") + '"', end)
            end = len(text) if close < 0 else close + len(m.group("delim")) + 2
            kind = "str"
        if kind == "nl":
            line_start = True
        elif kind in ("lc", "bc") and "NOLINT" in text[pos:end]:
            _nolint(text[pos:end], line, nolint, begun)
        elif kind not in ("ws", "lc", "bc"):
            line_start = False
            if cond.active():
                tokens.append(Token(text[pos:end], line, kind))
        line += text.count("\n", pos, end) if kind != "nl" else 1
        pos = end
    return Source(_merge_operator_names(tokens), nolint, macros)


def _merge_operator_names(tokens: list[Token]) -> list[Token]:
    """'operator' and what follows it up to its parameter list become one name token: 'operator()',
    'operator==', 'operator<<' ('>' '>' too), 'operator bool', 'operator""_kb'."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.text != "operator" or t.kind != "id":
            out.append(t)
            i += 1
            continue
        j = i + 1
        if j + 1 < len(tokens) and tokens[j].text + tokens[j + 1].text in ("()", "[]"):
            j += 2
        else:
            while j < len(tokens) and tokens[j].text != "(" and tokens[j].text not in (";", "{", "}"):
                j += 1
        parts = [x.text for x in tokens[i + 1:j]]
        if parts and re.match(r"[A-Za-z_]", parts[0]) and parts[0] not in ("new", "delete"):
            name = "operator " + " ".join(parts)
        elif parts and parts[0] in ("new", "delete"):
            name = "operator " + "".join(parts)
        else:
            name = "operator" + "".join(parts)
        out.append(Token(name, t.line, "id"))
        i = j
    return out


_CLASS_KEYS = {"class", "struct", "union"}
_NOT_A_NAME = {"decltype", "alignas", "__attribute__", "noexcept", "requires", "explicit", "sizeof",
               "alignof", "static_assert", "typeof", "__declspec", "throw", "if", "for", "while", "switch",
               "return", "catch"}
_OPEN, _CLOSE = {"(": ")", "[": "]"}, {")", "]"}


def _strip_template_heads(head: list[Token]) -> list[Token]:
    """head without 'template <...>' parameter lists (where 'class' and '=' mean something else)."""
    out: list[Token] = []
    i = 0
    while i < len(head):
        if head[i].text == "template" and i + 1 < len(head) and head[i + 1].text == "<":
            depth, i = 0, i + 1
            while i < len(head):
                depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(head[i].text, 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(head[i])
        i += 1
    return out


def _top_level(head: list[Token]):
    """(index, token) of head's tokens outside parentheses, brackets and template arguments."""
    paren = angle = 0
    prev = None
    for i, t in enumerate(head):
        if t.text in _OPEN:
            if paren == 0 and angle == 0:
                yield i, t
            paren += 1
        elif t.text in _CLOSE:
            paren = max(0, paren - 1)
        elif paren == 0 and t.text == "<" and prev is not None and prev.kind == "id":
            angle += 1
        elif paren == 0 and t.text == ">" and angle > 0:
            angle -= 1
            if angle == 0:
                yield i, t
        elif paren == 0 and angle == 0:
            yield i, t
        prev = t


def _classify(head: list[Token]) -> tuple[str, int]:
    """What a '{' after head opens at namespace or class scope: ('namespace' | 'class' | 'enum' | 'data'
    | 'initializer' | 'function', index in head of the function's name)."""
    head = _strip_template_heads(head)
    top = list(_top_level(head))
    # A macro invocation without a ';' may stand before it: FOO(x) namespace y {
    if any(t.text == "namespace" for _, t in top) or head and head[0].text == "extern" and len(head) == 2 \
            and head[1].kind == "str":
        return "namespace", -1
    for n, (i, t) in enumerate(top):
        if t.text in _CLASS_KEYS | {"enum"} and not any(u.text == "(" for _, u in top[n + 1:]):
            return ("enum" if t.text == "enum" else "class"), -1
    if any(t.text == "=" for _, t in top):
        return "data", -1
    name, after_params = -1, None
    for n, (i, t) in enumerate(top):
        if t.text in (":", "->") and name >= 0:
            after_params = t.text
            break
        if t.text == "(" and i > 0 and (head[i - 1].kind == "id" and head[i - 1].text not in _NOT_A_NAME
                                        or head[i - 1].text == ">"):
            name = i - 1
    if name < 0:
        return "data", -1
    if after_params == ":" and (head[-1].kind == "id" or head[-1].text == ">"):
        return "initializer", -1        # S() : a_{1} {: the '{' of a member initialiser
    return "function", name


def _template_parameters(head: list[Token], i: int) -> tuple[list[str], int]:
    """The names of the parameters of the 'template <...>' at i, and the index after its '>'."""
    names: list[str] = []
    depth, current, defaulted = 0, "", False
    i += 1
    while i < len(head):
        t = head[i]
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(t.text, 0)
        i += 1
        if depth == 0 or depth == 1 and t.text == ",":
            names += [current] if current else []
            current, defaulted = "", False
            if depth == 0:
                break
        elif depth == 1 and t.text == "=":
            defaulted = True
        elif depth == 1 and t.kind == "id" and not defaulted:
            current = t.text
    return names, i


def _class_of(head: list[Token]) -> tuple[str, str]:
    """The name of the class head opens and, for a class template, its parameters as '<T, N>'."""
    params: list[str] = []
    i = 0
    while i < len(head):
        if head[i].text == "template" and i + 1 < len(head) and head[i + 1].text == "<":
            params, i = _template_parameters(head, i)
            continue
        if head[i].text in _CLASS_KEYS and i + 1 < len(head) and head[i + 1].kind == "id":
            return head[i + 1].text, ("<" + ", ".join(params) + ">") if params else ""
        i += 1
    return "", ""


def _template_id(head: list[Token], i: int) -> tuple[int, str]:
    """For the '>' at head[i] that closes a template-id: the index of its name and its arguments, '<int>'."""
    depth, j = 0, i
    while j > 0:
        depth += {">": 1, "<": -1}.get(head[j].text, 0)
        if depth == 0:
            break
        j -= 1
    return j - 1, "<" + "".join(x.text + (" " if x.text == "," else "") for x in head[j + 1:i]) + ">"


def _function_name(head: list[Token], i: int) -> Token:
    t = head[i]
    if t.text == ">":           # an explicit specialisation: f<int>
        j, args = _template_id(head, i)
        return Token(head[j].text + args, head[j].line, "id")
    tilde = i > 0 and head[i - 1].text == "~"
    name = Token("~" + t.text, head[i - 1].line, "id") if tilde else t
    q = i - 1 - tilde
    if q >= 1 and head[q].text == "::" and head[q - 1].text == ">":
        j, args = _template_id(head, q - 1)
        if head[j].text == t.text:  # Box<T>::Box() {: clang-tidy names a class template's constructor 'Box<T>'
            name = Token(name.text + args, name.line, "id")
    return name


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.found: list[Function] = []

    def skip_braces(self, i: int) -> int:
        """From the '{' at i to just after its '}'."""
        depth = 0
        while i < len(self.tokens):
            depth += {"{": 1, "}": -1}.get(self.tokens[i].text, 0)
            i += 1
            if depth == 0:
                break
        return i

    def scope(self, i: int, mode: str, cls: tuple[str, str] = ("", "")) -> int:
        """Reads declarations from i to the '}' that closes the scope (mode: 'namespace', 'class' or
        'block', a function's body; cls: the class's name and template parameters, '<T, N>');
        returns the index after that '}'."""
        head: list[Token] = []
        depth = 0
        toks = self.tokens
        while i < len(toks):
            t = toks[i]
            if t.text in _OPEN:
                depth += 1
            elif t.text in _CLOSE:
                depth = max(0, depth - 1)
            elif t.text == "{":
                if depth > 0:
                    i = self.scope(i + 1, "block") if mode == "block" else self.skip_braces(i)
                    head.append(Token("{}", t.line, "p"))
                    continue
                i, head = self.open_brace(i, head, mode, cls)
                continue
            elif t.text == "}":
                return i + 1
            elif depth == 0 and t.text == ";":
                head, i = [], i + 1
                continue
            elif depth == 0 and t.text == ":" and mode == "class" and len(head) == 1 and \
                    head[0].text in ("public", "private", "protected"):
                head, i = [], i + 1
                continue
            head.append(t)
            i += 1
        return i

    def open_brace(self, i: int, head: list[Token], mode: str, cls: tuple[str, str]) -> tuple[int, list[Token]]:
        """Handles the '{' at i after head; returns where to go on and the head from there."""
        stripped = _strip_template_heads(head)
        kind, name = _classify(head) if mode != "block" else self.block_kind(stripped)
        if kind == "namespace":
            return self.scope(i + 1, "namespace"), []
        if kind == "class":
            return self.scope(i + 1, "class", _class_of(head)), [Token("{}", self.tokens[i].line, "p")]
        if kind == "function":
            return self.function(i, stripped, name, cls), []
        if mode == "block":
            return self.scope(i + 1, "block"), head + [Token("{}", self.tokens[i].line, "p")]
        return self.skip_braces(i), head + [Token("{}", self.tokens[i].line, "p")]

    @staticmethod
    def block_kind(head: list[Token]) -> tuple[str, int]:
        """Inside a function only local classes matter (clang-tidy measures their member functions)."""
        top = list(_top_level(head))
        for n, (_, t) in enumerate(top):
            if t.text in _CLASS_KEYS and not any(u.text in ("(", "=", "new", "return") for _, u in top[:n]) \
                    and not any(u.text == "(" for _, u in top[n + 1:]):
                return "class", -1
        return "other", -1

    def function(self, i: int, head: list[Token], name_at: int, cls: tuple[str, str]) -> int:
        """The function whose body opens at i; returns the index after its body (and handlers)."""
        first = head[-1].line if head and head[-1].text == "try" else self.tokens[i].line
        end = self.scope(i + 1, "block")
        empty = end == i + 2
        while end < len(self.tokens) and self.tokens[end].text == "catch":
            j = end + 1
            while j < len(self.tokens) and self.tokens[j].text != "{":
                j += 1
            end, empty = min(self.scope(j + 1, "block"), len(self.tokens)), False
        last = self.tokens[end - 1].line    # an unclosed body (bad input) ends at the file's end
        if not empty:
            name = _function_name(head, name_at)
            text = name.text
            if cls[1] and text.lstrip("~") == cls[0]:
                text += cls[1]      # clang-tidy names a class template's constructor 'Box<T, N>'
            self.found.append(Function(text, name.line, last - first))
        return end


def _parse(tokens: list[Token]) -> list[Function]:
    p = _Parser(tokens)
    i = 0
    while i < len(p.tokens):
        i = p.scope(i, "namespace")     # a stray '}' at file scope ends a scope early: read on
    return p.found


def _macro_functions(src: Source) -> list[Function]:
    """The functions that the file's own function-like macros write where they are invoked, as
    clang-tidy reports them: at the invocation, named by the argument, sized in the definition."""
    written = {m.name: (m, _parse(tokenize(m.body).tokens)) for m in src.macros.values()}
    written = {k: v for k, v in written.items() if v[1]}
    found: list[Function] = []
    toks = src.tokens
    for i, t in enumerate(toks[:-1]):
        if t.text not in written or toks[i + 1].text != "(":
            continue
        macro, fns = written[t.text]
        args, depth, j = [[]], 0, i + 1
        while j < len(toks):
            depth += {"(": 1, ")": -1}.get(toks[j].text, 0)
            if depth == 0:
                break
            if depth == 1 and toks[j].text == ",":
                args.append([])
            elif j > i + 1:
                args[-1].append(toks[j].text)
            j += 1
        values = dict(zip(macro.params, ("".join(a) for a in args)))
        found += [Function(values.get(f.name, f.name), t.line, f.size) for f in fns]
    return found


def functions(text: str) -> list[Function]:
    """Every function definition in text (a .cpp or a header) with its size, in order; not those that
    a NOLINT comment hides from clang-tidy (on the line of the name, or NOLINTNEXTLINE above it)."""
    src = tokenize(text)
    found = _parse(src.tokens) + _macro_functions(src)
    return sorted((f for f in found if f.line not in src.nolint), key=lambda f: f.line)
