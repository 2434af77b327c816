// What is outside the viewport or covered on the table page: tests/web/layout.py runs
// this function in the page (page.evaluate) and explains it.
({need, buttons}) => {
  const W = innerWidth, H = innerHeight;
  const problems = [];
  const name = (el) => {
    const card = el.dataset.card ? `[${el.dataset.card}]` : '';
    const text = (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30);
    return `${el.className.split(' ')[0] || el.tagName.toLowerCase()}${card} "${text}"`;
  };
  // Which sampled points of el's box are el's own: [rows][cols] of booleans.
  let over = null; // what was hit instead, last
  const grid = (el, step, inset) => {
    const r = el.getBoundingClientRect();
    const rows = [];
    over = null;
    for (let y = r.top + inset; y <= r.bottom - inset + 0.01; y += step) {
      const row = [];
      for (let x = r.left + inset; x <= r.right - inset + 0.01; x += step) {
        const hit = x >= 0 && y >= 0 && x < W && y < H ? document.elementFromPoint(x, y) : null;
        const own = !!hit && (hit === el || el.contains(hit));
        if (!own) over = hit;
        row.push(own);
      }
      rows.push(row);
    }
    return rows;
  };
  // The side of the largest square of own points, in px (maximal-square dynamic programme).
  const ownSquare = (rows, step) => {
    let best = 0;
    const dp = rows.map((row) => row.map(() => 0));
    rows.forEach((row, i) => row.forEach((own, j) => {
      if (!own) return;
      dp[i][j] = 1 + (i && j ? Math.min(dp[i - 1][j], dp[i][j - 1], dp[i - 1][j - 1]) : 0);
      best = Math.max(best, dp[i][j]);
    }));
    return best ? (best - 1) * step : 0;
  };
  const ownSquareAt = (el, side) => {
    const r = el.getBoundingClientRect();
    for (const dx of [0, 1]) {
      const left = dx ? r.right - side - 2 : r.left + 2;
      let whole = true;
      for (let y = r.top + 2; whole && y <= r.top + 2 + side + 0.01; y += side / 11) {
        for (let x = left; whole && x <= left + side + 0.01; x += side / 11) {
          const hit = x >= 0 && y >= 0 && x < W && y < H ? document.elementFromPoint(x, y) : null;
          whole = !!hit && (hit === el || el.contains(hit));
        }
      }
      if (whole) return true;
    }
    return false;
  };
  const fraction = (rows) => {
    const all = rows.flat();
    return all.length ? all.filter(Boolean).length / all.length : 0;
  };
  const inView = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;
  };
  const where = (el) => {
    const r = el.getBoundingClientRect();
    const by = over ? ` (by ${over.className || over.tagName})` : '';
    over = null;
    return `at ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)}${by}`;
  };
  const needed = [];
  // A modal dialog (the game over) stands before the table, which waits behind it: what
  // must show then is the dialog's way on.
  const modal = !!document.querySelector('dialog[open]:modal');
  for (const card of modal ? [] : document.querySelectorAll('.hand .card')) {
    needed.push(card);
    if (!inView(card)) { problems.push(`hand card ${name(card)} is outside the viewport ${where(card)}`); continue; }
    // Quick: the square at the card's top left (its index) is whole and its own, as it is
    // in a fan or in rows; otherwise the largest own square anywhere, sought point by point.
    if (need && ownSquareAt(card, need)) continue;
    const side = ownSquare(grid(card, 2, 0.5), 2);
    if (side < need) problems.push(`hand card ${name(card)} shows ${side}px of its own, not ${need}px ${where(card)}`);
  }
  for (const seat of modal ? [] : document.querySelectorAll('.felt .seat')) {
    needed.push(seat);
    if (!inView(seat)) { problems.push(`seat ${name(seat)} is outside the viewport ${where(seat)}`); continue; }
    if (fraction(grid(seat, 6, 3)) < 1) problems.push(`seat ${name(seat)} is covered ${where(seat)}`);
  }
  for (const button of document.querySelectorAll(buttons)) {
    if (button.disabled || button.closest('[hidden]')) continue;
    needed.push(button);
    if (!inView(button)) { problems.push(`button ${name(button)} is outside the viewport ${where(button)}`); continue; }
    if (fraction(grid(button, 5, 2)) < 1) problems.push(`button ${name(button)} is covered ${where(button)}`);
  }
  for (const card of modal ? [] : document.querySelectorAll('.felt .trick .card')) {
    needed.push(card);
    if (!inView(card)) { problems.push(`trick card ${name(card)} is outside the viewport ${where(card)}`); continue; }
    if (fraction(grid(card, 3, 1)) < 0.6) problems.push(`trick card ${name(card)} is covered ${where(card)}`);
  }
  for (const note of document.querySelectorAll('.toast')) {
    const t = note.getBoundingClientRect();
    for (const el of needed) {
      const r = el.getBoundingClientRect();
      if (t.left < r.right && r.left < t.right && t.top < r.bottom && r.top < t.bottom) {
        problems.push(`the notice "${note.textContent.slice(0, 40)}" covers ${name(el)}`);
      }
    }
  }
  const wide = document.documentElement.scrollWidth;
  if (wide > W) problems.push(`the page is ${wide}px wide`);
  // The score sheet shows every column (a long name once pushed one out of its box).
  for (const box of document.querySelectorAll('.sheet-box')) {
    if (box.scrollWidth > box.clientWidth + 1) problems.push(`the score sheet is ${box.scrollWidth}px wide in its ${box.clientWidth}px box`);
  }
  return problems;
}
