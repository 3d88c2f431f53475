"""The start of what the instant views' browser tests read of a page, the same way from the live page and from the
server's HTML (tests/browser/test_compare_instant.py, test_arithmetic_instant.py, test_dot_instant.py): whether a
node is shown, and an element's shown text, hidden parts skipped and whitespace collapsed."""

from __future__ import annotations

READERS = """
  const visible = (node) => !node.closest("[hidden]");
  const text = (el) => {
    let out = "";
    const walk = (node) => {
      if (node.nodeType === 3) out += node.textContent;
      else if (node.nodeType === 1 && !node.hasAttribute("hidden")) node.childNodes.forEach(walk);
    };
    walk(el);
    return out.replace(/\\s+/g, " ").trim();
  };
"""


def snapshot(parameter: str, body: str) -> str:
    """A JavaScript function of `parameter` that has `visible` and `text` and then runs `body`."""
    return f"({parameter}) => {{{READERS}{body}}}"
