// Words that do not fit on the page: tests/web/layout.py runs this function in the page
// (page.evaluate) for tests/web/test_i18n_layout.py. Every piece of text shown is measured
// as laid out (a Range over its text node): it is "cut" when a box that clips (overflow
// hidden or clip) ends before it, "overflowing" when it runs out of the block that holds
// it (a label wider than its button) or past the viewport's sides. A box that scrolls
// (the chat, the score sheet, the rooms' strip) cuts nothing: its text is scrolled to;
// but a dialog that must be scrolled sideways to be read is reported. A
// name cut with an ellipsis is allowed where its whole is in a tooltip (a title holding
// that text), as the seats and the pass dialog do for 24-letter names.
() => {
  const W = innerWidth;
  const problems = [];
  const clips = (style, axis) => ["hidden", "clip"].includes(axis === "x" ? style.overflowX : style.overflowY);
  const scrolls = (style) => ["auto", "scroll"].includes(style.overflowX) || ["auto", "scroll"].includes(style.overflowY);
  const label = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""}`;
  const tooltipHolds = (el, text) => {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const title = a.getAttribute("title");
      if (title && (title.includes(text) || text.includes(title))) return true;
    }
    return false;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (!text) continue;
    const el = node.parentElement;
    // A card face is drawn, not read: its glyphs (and a stack of taken cards, each covering
    // the last) are named by the card's aria-label.
    if (!el || el.closest(".sr-only, .skip, .card, [hidden], script, style, noscript, option, select")) continue;
    if (!el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const where = `"${text.slice(0, 40)}" in ${label(el)} at ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)}`;
    // The boxes around it, nearest first: the first block holds it; one that clips cuts
    // it (allowed for a name whose whole is in a tooltip); one that scrolls shows it.
    let block = null;
    let seen = { left: r.left, right: r.right }; // the part of it a clipping box leaves
    let scrolled = false;
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      const box = a.getBoundingClientRect();
      const outX = r.left < box.left - 1 || r.right > box.right + 1;
      if (scrolls(s)) {
        // A dialog (or a box in one) scrolls up and down to show all of itself; sideways, it
        // is cut: the player sees no more of it.
        if (outX && a.closest("dialog, [role=dialog]") && !tooltipHolds(el, text)) {
          problems.push(`runs out of ${label(a)} sideways (${Math.round(box.width)} wide): ${where}`);
        }
        scrolled = true;
        break;
      }
      const outY = r.top < box.top - 1 || r.bottom > box.bottom + 1;
      if ((outX && clips(s, "x")) || (outY && clips(s, "y"))) {
        if (!tooltipHolds(el, text)) problems.push(`cut by ${label(a)} (${Math.round(box.width)}x${Math.round(box.height)}): ${where}`);
        seen = { left: Math.max(seen.left, box.left), right: Math.min(seen.right, box.right) };
        break;
      }
      if (!block && !s.display.startsWith("inline") && s.display !== "contents") {
        block = a;
        if (outX && !tooltipHolds(el, text)) problems.push(`overflows ${label(a)} (${Math.round(box.width)} wide): ${where}`);
      }
    }
    if (!scrolled && (seen.left < -0.5 || seen.right > W + 0.5)) problems.push(`runs past the viewport's side: ${where}`);
  }
  return problems;
}
