"""Checks for lesson 05's exercise: URI templates, a safe file:// resolver, and a scoring router.

Each test's docstring is the hint a student sees when it fails (``python tools/check.py 05``).
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest


def assert_raises(expected: type[Exception], function, *args, shown: str | None = None) -> None:
    """``function(*args)`` must raise ``expected``; the message names the case that did not.

    NotImplementedError (the untouched stub) propagates as it is, so the checker shows it plainly.
    """
    call = shown or f"{function.__name__}{args!r}"
    try:
        result = function(*args)
    except expected:
        return
    except NotImplementedError:
        raise
    except Exception as exc:
        wrong = f"{type(exc).__name__}: {exc}"
        raise AssertionError(f"{call} raised {wrong}; expected {expected.__name__}") from exc
    raise AssertionError(f"{call} returned {result!r}; expected {expected.__name__}")


# -- Exercise 1 · URI templates: {var}, {+var} and {?a,b} ------------------------------------------


def test_parse_template_splits_literals_and_expressions(exercise) -> None:
    """parse_template returns literal strings and (operator, names) tuples, in order; "" is the
    operator of {name}, "+" of {+name}, "?" of {?a,b}."""
    assert exercise.parse_template("courses://{id}{?level}") == [
        "courses://",
        ("", ["id"]),
        ("?", ["level"]),
    ]
    assert exercise.parse_template("file:///{+path}") == ["file:///", ("+", ["path"])]
    assert exercise.parse_template("search://x{?q,level,page}") == [
        "search://x",
        ("?", ["q", "level", "page"]),
    ]
    assert exercise.parse_template("plain://text") == ["plain://text"]
    assert exercise.parse_template("{a}-{b}") == [("", ["a"]), "-", ("", ["b"])]


BAD_TEMPLATES = [
    "courses://{",
    "courses://}",
    "a{b",
    "a}b",
    "x{a}}",
    "{}",
    "{#x}",
    "{/x}",
    "{.x}",
    "{;x}",
    "{&x}",
    "{x*}",
    "{x:3}",
    "{1x}",
    "{ x}",
    "{a}{a}",
    "{a}{?a}",
    "{a,b}",
    "{+a,b}",
    "{+}",
    "{?}",
    "{?q}/x",
    "{?q}{id}",
    "{?a}{?b}",
]


def test_unsupported_templates_are_refused(exercise) -> None:
    """Refuse with ValueError: stray braces, empty expressions, other operators (# / . ; &),
    modifiers (* and :3), bad or repeated names, several names in {x} or {+x}, and a {?...} that is
    not last. expand and match must refuse them too (they both start from parse_template)."""
    for template in BAD_TEMPLATES:
        assert_raises(ValueError, exercise.parse_template, template)
        assert_raises(ValueError, exercise.expand, template, {})
        assert_raises(ValueError, exercise.match, template, "courses://x")


def test_expand_simple_follows_rfc_6570(exercise) -> None:
    """{name} keeps only UNRESERVED characters (letters, digits, - . _ ~) and percent-encodes every
    other byte of the UTF-8 value, with upper-case hex (RFC 6570 section 3.2.2)."""
    values = {"var": "value", "hello": "Hello World!", "id": "AI101", "odd": "café/ü?#~x"}
    assert exercise.expand("{var}", values) == "value"
    assert exercise.expand("{hello}", values) == "Hello%20World%21"
    assert exercise.expand("courses://{id}", values) == "courses://AI101"
    assert exercise.expand("x/{odd}", values) == "x/caf%C3%A9%2F%C3%BC%3F%23~x"


def test_expand_leaves_out_undefined_variables(exercise) -> None:
    """A variable missing from values, or None, is undefined: {name} and {+name} expand to ""."""
    assert exercise.expand("courses://{id}", {}) == "courses://"
    assert exercise.expand("courses://{id}", {"id": None}) == "courses://"
    assert exercise.expand("file:///{+path}", {}) == "file:///"
    assert exercise.expand("courses://{id}", {"id": ""}) == "courses://"


def test_expand_reserved_keeps_reserved_characters(exercise) -> None:
    """{+name} keeps RESERVED characters (: / ? # [ ] @ ! $ & ' ( ) * + , ; =) as they are and
    encodes the rest like {name} (RFC 6570 section 3.2.3)."""
    values = {
        "var": "value",
        "hello": "Hello World!",
        "path": "/foo/bar",
        "base": "http://example.com/home/",
    }
    assert exercise.expand("{+var}", values) == "value"
    assert exercise.expand("{+hello}", values) == "Hello%20World!"
    assert exercise.expand("{+path}/here", values) == "/foo/bar/here"
    assert exercise.expand("here?ref={+path}", values) == "here?ref=/foo/bar"
    assert exercise.expand("{+base}index", values) == "http://example.com/home/index"
    assert exercise.expand("file:///{+path}", {"path": "docs/a b.md"}) == "file:///docs/a%20b.md"


def test_expand_reserved_keeps_percent_triplets_only(exercise) -> None:
    """In {+name} a "%XX" triplet already in the value stays as it is; any other "%" is "%25"."""
    assert exercise.expand("{+v}", {"v": "a%20b"}) == "a%20b"
    assert exercise.expand("{+v}", {"v": "50%"}) == "50%25"
    assert exercise.expand("{+v}", {"v": "100%2"}) == "100%252"
    assert exercise.expand("{+v}", {"v": "%zz%2f"}) == "%25zz%2f"
    assert exercise.expand("{+p}", {"p": "/docs/a%20b/c d?"}) == "/docs/a%20b/c%20d?"
    assert exercise.expand("{v}", {"v": "a%20b"}) == "a%2520b"  # {v} encodes every "%"


def test_expand_query_follows_rfc_6570(exercise) -> None:
    """{?a,b} gives "?a=1&b=2" in the template's order: undefined variables are left out, "" gives
    "a=", values are encoded like {name}, and nothing at all when no variable has a value."""
    values = {"x": "1024", "y": "768", "empty": ""}
    assert exercise.expand("{?x,y}", values) == "?x=1024&y=768"
    assert exercise.expand("{?x,y,empty}", values) == "?x=1024&y=768&empty="
    assert exercise.expand("{?x,y,undef}", values) == "?x=1024&y=768"
    assert exercise.expand("{?y,x}", values) == "?y=768&x=1024"
    assert (
        exercise.expand("search://courses{?q,level}", {"q": None, "level": "Advanced"})
        == "search://courses?level=Advanced"
    )
    assert exercise.expand("search://courses{?q,level}", {}) == "search://courses"
    assert exercise.expand("s://c{?q}", {"q": "a b&c=d"}) == "s://c?q=a%20b%26c%3Dd"


def test_match_simple_variables(exercise) -> None:
    """{name} matches one or more UNRESERVED characters or %XX triplets; the value comes back
    percent-decoded as UTF-8 (upper- or lower-case hex)."""
    assert exercise.match("courses://{id}", "courses://AI101") == {"id": "AI101"}
    assert exercise.match("courses://{id}", "courses://AI%20101") == {"id": "AI 101"}
    assert exercise.match("courses://{id}", "courses://caf%C3%A9") == {"id": "café"}
    assert exercise.match("courses://{id}", "courses://caf%c3%a9") == {"id": "café"}
    assert exercise.match("courses://{id}", "courses://a%2Fb") == {"id": "a/b"}
    assert exercise.match("{a}-{b}", "x-y") is not None
    assert exercise.match("plain://text", "plain://text") == {}


def test_match_simple_refuses_what_it_cannot_expand_to(exercise) -> None:
    """None when the URI is not an expansion: an empty value, "/", "?", "#" or a space in a {name}
    value, a broken or non-UTF-8 %XX, other literal text, or something left over."""
    for uri in (
        "courses://",
        "courses://a/b",
        "courses://a b",
        "courses://a?b",
        "courses://a#b",
        "courses://%zz",
        "courses://%FF",
        "courses://AI101/",
        "other://AI101",
        "xcourses://AI101",
        "courses://AI101?x=1",
    ):
        found = exercise.match("courses://{id}", uri)
        assert found is None, f"match('courses://{{id}}', {uri!r}) should be None, not {found!r}"


def test_match_literal_text_exactly(exercise) -> None:
    """Literal text matches itself and nothing else: escape it if you build a regular expression."""
    assert exercise.match("a.b+c://{id}", "a.b+c://x") == {"id": "x"}
    assert exercise.match("a.b+c://{id}", "aXbbc://x") is None
    assert exercise.match("plain://text", "plain://texts") is None


def test_match_reserved_variables_span_slashes(exercise) -> None:
    """{+name} matches a whole path, "/" included, and comes back percent-decoded."""
    assert exercise.match("file:///{+path}", "file:///docs/intro.md") == {"path": "docs/intro.md"}
    assert exercise.match("file:///{+path}", "file:///a/b%20c.txt") == {"path": "a/b c.txt"}
    assert exercise.match("file:///{+path}", "file:///a:b@c!$&'()*+,;=") == {
        "path": "a:b@c!$&'()*+,;="
    }
    # Decoded, an encoded ".." is a real ".." again: that is why part 2 exists.
    assert exercise.match("file:///{+path}", "file:///%2e%2e/secret") == {"path": "../secret"}


def test_match_reserved_stops_at_query_and_fragment(exercise) -> None:
    """A {+name} value never contains "?" or "#": the query and the fragment are not part of a
    path."""
    assert exercise.match("file:///{+path}", "file:///a?b") is None
    assert exercise.match("file:///{+path}", "file:///a#b") is None
    assert exercise.match("file:///{+path}", "file:///a[1]") is None
    assert exercise.match("file:///{+path}", "file:///") is None
    assert exercise.match("file:///{+path}{?rev}", "file:///a/b.txt?rev=3") == {
        "path": "a/b.txt",
        "rev": "3",
    }


def test_match_query_parameters_are_optional_and_unordered(exercise) -> None:
    """{?q,level} matches no query at all, or "?" and name=value pairs joined by "&" in any order;
    only the names present come back (decoded); "q=" gives ""."""
    template = "search://courses{?q,level}"
    assert exercise.match(template, "search://courses") == {}
    assert exercise.match(template, "search://courses?q=sql") == {"q": "sql"}
    assert exercise.match(template, "search://courses?level=Advanced&q=sql") == {
        "q": "sql",
        "level": "Advanced",
    }
    assert exercise.match(template, "search://courses?q=") == {"q": ""}
    assert exercise.match(template, "search://courses?q=a%20b%26c") == {"q": "a b&c"}
    assert exercise.match("courses://{id}{?fields}", "courses://AI101?fields=name") == {
        "id": "AI101",
        "fields": "name",
    }


def test_match_query_refuses_malformed_queries(exercise) -> None:
    """None for a query that {?q,level} cannot expand to: a bare "?", a pair without "=", an empty
    pair, an unknown or repeated name, a character outside UNRESERVED/%XX in a value, a fragment."""
    for query in (
        "?",
        "?q",
        "?q=1&&level=2",
        "?q=1&",
        "?zzz=1",
        "?q=1&q=2",
        "?q=a b",
        "?q=a=b",
        "?q=1#frag",
        "??q=1",
        "?q=%FF",
        "?q=%zz",
        "&q=1",
    ):
        uri = "search://courses" + query
        found = exercise.match("search://courses{?q,level}", uri)
        assert found is None, (
            f"match('search://courses{{?q,level}}', {uri!r}) should be None, not {found!r}"
        )


def test_expand_then_match_gives_the_values_back(exercise) -> None:
    """Matching is expansion run backwards: match(t, expand(t, v)) == v for {name} and {?...}."""
    template = "courses://{id}{?q,level}"
    for identifier in ("AI101", "AI 101", "café/ü?#&=", "50%", "~._-"):
        for values in ({"id": identifier}, {"id": identifier, "q": identifier + "!", "level": ""}):
            uri = exercise.expand(template, values)
            assert exercise.match(template, uri) == values, (
                f"{values!r} -> {uri!r} -> not the same values"
            )


# -- Exercise 2 · safe_join: a file:// URI that can never leave its root ---------------------------


def symlink(link: Path, target: Path | str, *, directory: bool = False) -> None:
    """Make a symlink, or skip on a platform that cannot (Windows without the right privilege)."""
    try:
        os.symlink(target, link, target_is_directory=directory)
    except (OSError, NotImplementedError) as exc:  # pragma: no cover - Linux and macOS always can
        pytest.skip(f"symlinks are not available here: {exc}")


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """tmp/secret.txt outside; tmp/root with files, folders and symlinks pointing in and out."""
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "notes.txt").write_text("notes\n")
    (root / "docs" / "intro.md").write_text("# Intro\n")
    (root / "a b.txt").write_text("space\n")
    (root / "café.txt").write_text("accent\n")
    symlink(root / "inside_link.txt", root / "notes.txt")  # in → in: fine
    symlink(root / "escape.txt", secret)  # in → out
    symlink(root / "outside_dir", tmp_path, directory=True)  # a folder link → out
    symlink(root / "dangling.txt", root / "missing.txt")  # in → nothing, inside
    symlink(root / "gone_out.txt", tmp_path / "missing.txt")  # in → nothing, outside
    symlink(root / "loop_a", root / "loop_b")
    symlink(root / "loop_b", root / "loop_a")
    symlink(tmp_path / "root_link", root, directory=True)  # the root itself through a link
    return {"tmp": tmp_path, "root": root, "secret": secret}


def raises_for_each(exercise, tree: dict[str, Path], expected: type[Exception], *uris: str) -> None:
    """safe_join(root, uri) raises ``expected`` for every one of ``uris``."""
    for uri in uris:
        assert_raises(
            expected, exercise.safe_join, tree["root"], uri, shown=f"safe_join(root, {uri!r})"
        )


def test_safe_join_finds_files_inside_the_root(exercise, tree) -> None:
    """The URI's path is relative to the root: file:///docs/intro.md is <root>/docs/intro.md. Decode
    each segment once, skip "." segments, and return the fully resolved path."""
    for uri, expected in (
        ("file:///notes.txt", "notes.txt"),
        ("file:///docs/intro.md", "docs/intro.md"),
        ("file://localhost/notes.txt", "notes.txt"),
        ("FILE:///notes.txt", "notes.txt"),
        ("file:///docs/./intro.md", "docs/intro.md"),
        ("file:///./notes.txt", "notes.txt"),
        ("file:///a%20b.txt", "a b.txt"),
        ("file:///caf%C3%A9.txt", "café.txt"),
    ):
        found = exercise.safe_join(tree["root"], uri)
        assert found == (tree["root"] / expected).resolve(), (
            f"safe_join(root, {uri!r}) gave {found}"
        )


def test_safe_join_accepts_str_roots_and_symlinked_roots(exercise, tree) -> None:
    """Resolve the root first (it may be a str, or a symlink like macOS's /tmp) and return real
    paths; a symlink inside the root that stays inside is fine and gives its target's path."""
    notes = (tree["root"] / "notes.txt").resolve()
    assert exercise.safe_join(str(tree["root"]), "file:///notes.txt") == notes
    assert exercise.safe_join(tree["tmp"] / "root_link", "file:///notes.txt") == notes
    assert exercise.safe_join(tree["root"], "file:///inside_link.txt") == notes


def test_safe_join_refuses_dot_dot_however_spelled(exercise, tree) -> None:
    """A segment that is ".." once decoded (%2e%2e, %2E%2E, .%2e) is a ValueError, even a harmless
    one."""
    raises_for_each(
        exercise,
        tree,
        ValueError,
        "file:///../secret.txt",
        "file:///docs/../../secret.txt",
        "file:///docs/../notes.txt",
        "file:///%2e%2e/secret.txt",
        "file:///%2E%2E/secret.txt",
        "file:///.%2e/secret.txt",
        "file:///docs/%2e%2e/%2e%2e/secret.txt",
        "file:///..",
    )


def test_safe_join_refuses_encoded_separators_backslashes_and_nul(exercise, tree) -> None:
    """ValueError for a decoded "/" (%2F is never a separator), a backslash (raw or %5C, Windows'
    separator), a NUL (%00), or a segment that is not UTF-8 once decoded."""
    raises_for_each(
        exercise,
        tree,
        ValueError,
        "file:///docs%2Fintro.md",
        "file:///..%2Fsecret.txt",
        "file:///..%2fsecret.txt",
        "file:///..%5Csecret.txt",
        "file:///docs\\intro.md",
        "file:///%00notes.txt",
        "file:///notes.txt%00",
        "file:///%FF.txt",
    )


def test_safe_join_refuses_absolute_paths_hosts_and_drives(exercise, tree) -> None:
    """ValueError for an empty segment (//: an absolute path in disguise), a host other than
    localhost, and a segment that looks like a Windows drive (C:, c:foo, C%3A)."""
    raises_for_each(
        exercise,
        tree,
        ValueError,
        "file:////etc/passwd",
        "file:///docs//intro.md",
        "file:///%2Fetc/passwd",
        "file://etc/passwd",
        "file://example.com/notes.txt",
        "file:///C:/Windows/win.ini",
        "file:///c:notes.txt",
        "file:///C%3A/Windows/win.ini",
        "file://C:/Windows/win.ini",
    )


def test_safe_join_refuses_other_schemes_queries_and_fragments(exercise, tree) -> None:
    """Only file:// URIs (any letter case), with no query and no fragment: anything else is
    ValueError."""
    raises_for_each(
        exercise,
        tree,
        ValueError,
        "https://example.com/notes.txt",
        "courses://all",
        "notes.txt",
        "/notes.txt",
        "file:///notes.txt?x=1",
        "file:///notes.txt?",
        "file:///notes.txt#top",
    )


def test_safe_join_refuses_symlinks_that_lead_out(exercise, tree) -> None:
    """Follow every symlink (Path.resolve) and only then compare with the resolved root: a link, or
    a linked folder, that points outside is a ValueError, even when its target does not exist."""
    raises_for_each(
        exercise,
        tree,
        ValueError,
        "file:///escape.txt",
        "file:///outside_dir/secret.txt",
        "file:///gone_out.txt",
    )


def test_safe_join_reports_nothing_there_as_file_not_found(exercise, tree) -> None:
    """FileNotFoundError when the URI is acceptable but names no regular file: nothing there, a
    folder, a dangling link that stays inside, a symlink loop. Decode once: %252e%252e is a harmless
    name ("%2e%2e"), not ".."."""
    raises_for_each(
        exercise,
        tree,
        FileNotFoundError,
        "file:///missing.txt",
        "file:///docs",
        "file:///docs/",
        "file:///",
        "file:///dangling.txt",
        "file:///loop_a",
        "file:///%252e%252e/secret.txt",
    )


# -- Exercise 3 · A router that scores resources ---------------------------------------------------

#: What the course server lists in resources/list (notebook 05, section 1).
COURSE_RESOURCES = [
    {
        "uri": "courses://all",
        "name": "courses",
        "title": "All Courses",
        "description": "Complete list of courses available in the catalog",
        "mimeType": "application/json",
    },
    {
        "uri": "users://all",
        "name": "users",
        "title": "All Users",
        "description": "Complete list of users in the platform",
        "mimeType": "application/json",
    },
]


WORDS = [
    ("Which COURSES are there? Courses, please!", ["course"]),
    ("¿Qué cursos hay en el catálogo?", ["que", "curso", "hay", "en", "el", "catalogo"]),
    ("courses://all", ["course"]),
    ("class bus users address analysis", ["class", "bus", "user", "address", "analysi"]),
    ("AI101 in 2025", ["ai101", "2025"]),
    ("this is it", []),
    ("", []),
    ("Ünïcödé_names-and-such", ["unicode", "name", "such"]),
]


def test_words(exercise) -> None:
    """words(): casefold, strip accents (NFKD), split on anything but [a-z0-9], drop STOPWORDS
    (before folding plurals), fold a plural "s" (longer than 3, not "ss"), keep each word once, in
    order."""
    for text, expected in WORDS:
        found = exercise.words(text)
        assert found == expected, f"words({text!r}) gave {found!r}, expected {expected!r}"


def test_score_weights_fields(exercise) -> None:
    """score(): each message word scores the best WEIGHTS of a field that holds it (name 3, title 2,
    description 1), once per distinct word; the sum is the score. Missing fields count as empty."""
    courses, users = COURSE_RESOURCES
    assert exercise.score("Which courses are there?", courses) == 3
    assert exercise.score("Which courses are there?", users) == 0
    assert exercise.score("courses courses COURSES", courses) == 3
    assert exercise.score("the catalog", courses) == 1
    assert (
        exercise.score("courses", {"uri": "x://1", "name": "catalog", "title": "All Courses"}) == 2
    )
    assert (
        exercise.score(
            "courses and users",
            {"uri": "x://2", "name": "courses", "description": "users of courses"},
        )
        == 4
    )
    assert exercise.score("courses", {"uri": "x://3"}) == 0
    assert exercise.score("courses", {"uri": "x://4", "name": None, "title": None}) == 0


def test_route_the_course_servers_resources(exercise) -> None:
    """route(): compare whole words, not substrings ("cursor" is not "curso", "discourse" is not
    "course"); a score below the threshold (2) is not enough; ties in URI order."""
    for message, expected in (
        ("Which courses are there?", ["courses://all"]),
        ("List the users", ["users://all"]),
        ("Which users take which courses?", ["courses://all", "users://all"]),
        ("What is a cursor?", []),
        ("¿Qué recursos hay?", []),
        ("A discourse on users", ["users://all"]),
        ("Show me the catalog", []),
        ("", []),
    ):
        found = exercise.route(message, COURSE_RESOURCES)
        assert found == expected, (
            f"route({message!r}, COURSE_RESOURCES) gave {found!r}, not {expected!r}"
        )


def test_route_threshold_limit_and_order(exercise) -> None:
    """Keep scores >= threshold, best first, ties by URI (string order), at most limit; limit 0
    gives [] and a negative limit is a ValueError."""
    resources = [
        {"uri": "z://sql", "name": "sql", "description": "views"},
        {"uri": "b://views", "name": "views"},
        {"uri": "a://views", "name": "views", "title": "sql views"},
        {"uri": "c://other", "name": "other", "description": "sql"},
    ]
    message = "sql views"
    assert exercise.route(message, resources, limit=10) == ["a://views", "z://sql", "b://views"]
    assert exercise.route(message, resources, limit=10, threshold=1) == [
        "a://views",
        "z://sql",
        "b://views",
        "c://other",
    ]
    assert exercise.route(message, resources) == ["a://views", "z://sql"]
    assert exercise.route(message, resources, limit=1) == ["a://views"]
    assert exercise.route(message, resources, limit=0) == []
    assert exercise.route(message, resources, limit=10, threshold=5) == ["a://views"]
    assert exercise.route("Show me the catalog", COURSE_RESOURCES, threshold=1) == ["courses://all"]
    with pytest.raises(ValueError):
        exercise.route(message, resources, limit=-1)


def test_route_excludes_and_deduplicates(exercise) -> None:
    """exclude= lists URIs already in the conversation (never pasted twice); a URI listed twice is
    considered once."""
    assert (
        exercise.route("Which courses are there?", COURSE_RESOURCES, exclude=["courses://all"])
        == []
    )
    assert exercise.route(
        "Which users take which courses?", COURSE_RESOURCES, exclude={"courses://all"}
    ) == ["users://all"]
    twice = [COURSE_RESOURCES[0], dict(COURSE_RESOURCES[0])]
    assert exercise.route("courses", twice, limit=5) == ["courses://all"]


def test_route_does_not_depend_on_the_order_of_the_list(exercise) -> None:
    """The same message and resources give the same answer, whatever order the server listed them
    in."""
    resources = [
        *COURSE_RESOURCES,
        {"uri": "a://users", "name": "users"},
        {"uri": "m://course", "name": "course"},
    ]
    answers = {
        tuple(exercise.route("users and courses", list(order), limit=4))
        for order in itertools.permutations(resources)
    }
    assert answers == {("a://users", "courses://all", "m://course", "users://all")}
