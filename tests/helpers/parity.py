"""One comparison for the tests that hold the browser's modules to the Python cores: each case is one string of
fields ("\\x1f" apart) on both sides, and a difference is named by its case and field."""

from __future__ import annotations

from collections.abc import Sequence

SEP = "\x1f"  # between the fields of a case


def differences(cases: Sequence[str], ours: Sequence[str], theirs: Sequence[str], fields: Sequence[str]) -> list[str]:
    """Each case whose strings differ, with the fields that differ: Python's value and the JavaScript's."""
    assert len(ours) == len(theirs) == len(cases), (len(cases), len(ours), len(theirs))
    found = []
    for case, python, js in zip(cases, ours, theirs, strict=True):
        if python == js:
            continue
        a, b = python.split(SEP), js.split(SEP)
        names = fields if len(a) == len(fields) else [str(i) for i in range(len(a))]
        named = [f"  {name}: python {x!r}\n  {' ' * len(name)}  js     {y!r}"[:2000]
                 for name, x, y in zip(names, a, b, strict=False) if x != y]
        if len(a) != len(b) or not named:
            named.append(f"  python {a!r}\n  js     {b!r}"[:2000])
        found.append(f"{case}:\n" + "\n".join(named))
    return found


def assert_same(cases: Sequence[str], ours: Sequence[str], theirs: Sequence[str], fields: Sequence[str]) -> None:
    """Every case's fields equal; else how many differ, and the first few, field by field."""
    found = differences(cases, ours, theirs, fields)
    assert not found, f"{len(found)} of {len(cases)} cases differ, the first:\n" + "\n".join(found[:8])
