// The table page: seats around the felt, the trick in the middle, our hand at
// the bottom, and the dialogs for bidding, passing, the moon, votes and game over.
//
// State lives in TableState (table.js); this module turns it into DOM and
// user input into requests. Every render rebuilds the regions from state, so
// what is drawn is always what the state says; focus in the hand is kept.

import { h, fill, toast, seconds, sentence } from "./dom.js";
import { SEAT_NAMES, SUITS, cardEl, cardBack, cardName, cardShort } from "./cards.js";
import { TableState } from "./table.js";
import { chatPanel } from "./chat.js";
import { scoreSheet, sideName, ratingChange } from "./scoresheet.js";
import { handSummary } from "./handsummary.js";
import { promptDialog, DIRECTION_OFFSET } from "./dialogs.js";
import { play as playSound, soundOn, setSound } from "./sound.js";

const POSITIONS = ["bottom", "left", "top", "right"];
const pts = (n) => `${n < 0 ? "−" : ""}${Math.abs(n)} ${Math.abs(n) === 1 ? "pt" : "pts"}`;
const TRICK_LINGER_MS = 1100; // a finished trick stays up this long, its winner marked...
const TRICK_SLIDE_MS = 350; // ...then slides to the winner (not with prefers-reduced-motion)
const reducedMotion = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

export function mount(main, ctx, params) {
  const id = params.id;
  const st = new TableState(id);
  let selected = new Set(); // cards chosen for a Hearts pass
  let showLast = false;
  let gameOverClosed = false;
  let votedFor = new Map(); // vote id -> our choice
  let acting = false;
  let mounted = true;
  let renderQueued = false;
  let focusCard = null;
  let summaryDone = -1; // the last hand whose summary the player has closed
  let bidWhys = [null, null, null, null]; // this hand's robots' reasons for their bids

  const root = h("section", { class: "table-page", "aria-label": `Table ${id}` });
  const bar = h("header", { class: "table-bar" });
  const statusLine = h("p", { class: "turn-status", role: "status", "aria-live": "polite" });
  const contractLine = h("p", { class: "contract-line hint" });
  const felt = h("div", { class: "felt" });
  const seatEls = POSITIONS.map((pos) => h("div", { class: `seat pos-${pos}`, role: "group" }));
  const center = h("div", { class: "center" });
  const promptBox = h("div", { class: "prompt-box" });
  const handEl = h("div", { class: "hand", role: "toolbar", "aria-label": "Your hand", "aria-orientation": "horizontal" });
  const handNote = h("p", { class: "hand-note", "aria-live": "polite" });
  const receivedNote = h("p", { class: "received-note", hidden: true });
  const sheetEl = h("div", { class: "sheet-box" });
  const chatBox = h("div", { class: "table-chat" });
  const voteEl = h("div", { class: "vote-box", role: "alertdialog", "aria-labelledby": "vote-h", hidden: true });
  const overEl = h("dialog", { class: "game-over", "aria-labelledby": "over-h" });
  // Escape closes the dialog (the browser's own cancel): it must stay closed, like the button.
  overEl.addEventListener("cancel", () => { gameOverClosed = true; });
  const mine = h("div", { class: "my-area" }, seatEls[0], receivedNote, handNote, handEl);
  felt.append(seatEls[1], seatEls[2], seatEls[3], center, promptBox, mine);
  fill(main, root);
  root.append(bar, statusLine, contractLine,
    h("div", { class: "table-main" }, felt),
    h("aside", { class: "table-side" }, h("h2", {}, "Scores"), sheetEl, h("h2", {}, "Table chat"), chatBox),
    voteEl, overEl);

  const chat = chatPanel(ctx, { key: `table:${id}`, title: "Table chat",
    send: (text) => ctx.conn.request({ type: "chat", table: id, text }) });
  chatBox.append(chat.el);

  // -- seats and names -----------------------------------------------------------------

  const viewpoint = () => (st.seat ?? 2); // watchers sit South's way round: North at the top
  const posOf = (seat) => (seat - viewpoint() + 4) % 4;
  const seatAt = (pos) => (viewpoint() + pos) % 4;
  const names = () => {
    const raw = [0, 1, 2, 3].map((s) => st.seatName(s));
    return raw.map((n, s) => (raw.filter((x) => x === n).length > 1 ? `${n} (${SEAT_NAMES[s][0]})` : n));
  };
  const who = (seat) => (seat === st.seat ? "You" : st.seatName(seat));

  // -- requests ---------------------------------------------------------------------------

  async function act(action) {
    if (acting) return;
    acting = true;
    try {
      await ctx.conn.request({ type: "act", table: id, action });
    } catch (err) {
      if (!["not_your_turn", "wrong_phase"].includes(err.code)) toast(err.message, "bad");
    } finally {
      acting = false;
      schedule();
    }
  }

  async function join() {
    const mine = ctx.seatAt(id);
    try {
      if (mine) {
        try {
          const reply = await ctx.conn.request({ type: "rejoin", table: id, seat_token: mine.token, last_seq: st.seq });
          st.seat = mine.seat;
          if (reply.type === "snapshot") { st.applySnapshot(reply); closeOldSummary(); }
          schedule();
          return;
        } catch (err) {
          if (err.code !== "not_authorized") throw err;
          ctx.forgetSeat(id); // the window passed, or the seat is gone: watch instead
          st.seat = null;
        }
      }
      const snap = await ctx.conn.request({ type: "watch", table: id });
      st.applySnapshot(snap);
      closeOldSummary();
      schedule();
    } catch (err) {
      fill(root, h("div", { class: "panel" }, h("h1", {}, "Table not found"), h("p", {}, sentence(err.message)),
        h("a", { href: "#/" }, "Back to the lobby")));
      mounted = false;
    }
  }

  async function sit(seat) {
    try {
      const reply = await ctx.conn.request({ type: "sit", table: id, seat });
      ctx.rememberSeat(id, reply.seat, reply.seat_token, st.info?.room);
      st.seat = reply.seat;
      schedule();
    } catch (err) { toast(err.message, "bad"); }
  }

  async function leave() {
    if (st.seat != null && st.info?.state === "playing" &&
        !confirm("Leave this game? A robot plays your seat for the rest of it.")) return;
    if (st.seat != null && st.info?.state !== "over") {
      await ctx.conn.request({ type: "stand", table: id }).catch(() => {});
    }
    ctx.forgetSeat(id);
    ctx.navigate(st.info?.room ? `/room/${encodeURIComponent(st.info.room)}` : "/");
  }

  // -- rendering ------------------------------------------------------------------------------

  /** Coming to a table mid-game: only the hand that has just ended gets its summary. */
  function closeOldSummary() {
    const v = st.view;
    if (v && v.phase !== "hand_over") summaryDone = v.hand_results?.length ?? -1;
  }

  function schedule() {
    if (renderQueued || !mounted) return;
    renderQueued = true;
    requestAnimationFrame(() => { renderQueued = false; if (mounted) render(); });
  }

  function render() {
    const v = st.view;
    root.dataset.phase = v?.phase || st.info?.state || "loading";
    root.dataset.myTurn = String(st.ourTurn() && !!st.prompt);
    root.dataset.seat = st.seat ?? "watching";
    renderBar();
    renderStatus();
    seatEls.forEach((el, pos) => renderSeat(el, seatAt(pos)));
    renderCenter();
    renderHand();
    renderSheet();
    renderVotes();
    renderGameOver();
  }

  function renderBar() {
    const info = st.info;
    const v = st.view;
    const rules = v?.rules || {};
    let scores = null;
    if (v && v.game === "spades" && v.hand_no >= 0) {
      scores = [0, 1].map((side) => h("span", { class: "team-score" },
        h("span", { class: "hint" }, side === 0 ? "N+S " : "E+W "), h("b", {}, String(v.scores[side])),
        h("span", { class: "hint" }, ` (${v.bags?.[side] ?? 0} bags)`)));
    }
    fill(bar,
      h("div", { class: "bar-title" },
        h("h1", {}, `${info?.game === "hearts" ? "Hearts" : "Spades"} · table ${id}`),
        h("span", { class: "hint" }, [info?.room, rules.target ? `to ${rules.target}` : null,
          v?.hand_no >= 0 ? `hand ${v.hand_no + 1}` : null,
          v?.game === "hearts" && v.hand_no >= 0 ? (v.pass_direction === "hold" ? "no pass" : `pass ${v.pass_direction}`) : null,
          st.seat == null ? "watching" : null].filter(Boolean).join(" · "))),
      scores ? h("div", { class: "bar-scores" }, scores) : null,
      chancesLine(),
      h("div", { class: "bar-actions" },
        h("button", { type: "button", class: "sound-toggle", "aria-pressed": String(soundOn()),
          title: "Table sounds (remembered in this browser)",
          onclick: () => { setSound(!soundOn()); schedule(); } }, soundOn() ? "Sound on" : "Sound off"),
        h("button", { type: "button", "aria-pressed": String(showLast), disabled: st.lastTrick ? null : true,
          onclick: () => { showLast = !showLast; schedule(); } }, "Last trick"),
        st.gameOver && gameOverClosed ? h("button", { type: "button", onclick: () => { gameOverClosed = false; schedule(); } }, "Results") : null,
        h("button", { type: "button", onclick: leave }, st.seat == null ? "Back to lobby" : "Leave table")));
  }

  /** Ranked rooms: each side's chance of winning, as the room's rating system put it
   *  when the game started (the server sends it; nothing is computed here). */
  function chancesText(chances) {
    if (!chances?.length) return null;
    const pct = (p) => `${Math.round(p * 100)}%`;
    if (chances.length === 2) {
      return [0, 1].map((side) => `${side === 0 ? "North–South" : "East–West"} ${pct(chances[side])}`).join(" · ");
    }
    return chances.map((p, seat) => `${seat === st.seat ? "you" : st.seatName(seat)} ${pct(p)}`).join(" · ");
  }

  function chancesLine() {
    const text = chancesText(st.chances);
    if (!text) return null;
    const mySide = st.seat == null ? null : st.chances.length === 2 ? st.seat % 2 : st.seat;
    return h("p", { class: "chances" }, h("span", { class: "hint" }, "Chances: "), text,
      mySide != null ? h("span", { class: "hint" }, ` (yours ${Math.round(st.chances[mySide] * 100)}%)`) : null);
  }

  function turnText() {
    const v = st.view;
    if (!st.info) return "Loading the table…";
    if (st.paused && v?.phase !== "game_over") return `Paused: ${st.paused}.`;
    if (st.info.state === "waiting" || !v) {
      const empty = st.info.seats.filter((s) => s.kind === "empty").length;
      return `Waiting for players: ${empty} seat${empty === 1 ? "" : "s"} free. The game starts when all four are filled.`;
    }
    if (v.phase === "game_over") return "Game over.";
    if (v.phase === "hand_over") return "Hand over; the next deal is coming.";
    if (v.phase === "pass") {
      const waiting = v.pass_chosen.filter((x) => !x).length;
      if (st.ourTurn()) return `Your turn: choose ${st.prompt?.pass_count || v.rules.pass_count || 3} cards to pass ${v.pass_direction}.`;
      return `Passing ${v.pass_direction}: waiting for ${waiting} player${waiting === 1 ? "" : "s"}.`;
    }
    if (v.to_act == null) return v.game === "hearts" ? "The 2♣ leads." : "";
    const verb = { bid: "bid", play: "play", moon: "choose how the moon scores" }[v.phase] || "act";
    if (v.to_act === st.seat) return `Your turn to ${verb}.`;
    return `${st.seatName(v.to_act)} to ${verb}.`;
  }

  function renderStatus() {
    const left = st.turnStarted?.deadline ? (st.turnStarted.deadline - Date.now()) / 1000 : null;
    fill(statusLine, turnText(),
      left != null && st.view?.phase !== "pass" ? h("span", { class: `countdown ${left < 8 ? "low" : ""}` }, ` ${seconds(left)}`) : null);
    renderContract();
  }

  /** Spades: each side's contract (its non-nil bids together) against the tricks it has,
   *  so nobody adds up seats; shown once all four have bid. */
  function renderContract() {
    const v = st.view;
    if (!v || v.game !== "spades" || v.phase !== "play" || v.bids?.some((b) => b == null)) {
      fill(contractLine); contractLine.hidden = true; return;
    }
    contractLine.hidden = false;
    fill(contractLine, [0, 1].map((side) => {
      const seats = [side, side + 2];
      const bid = seats.reduce((n, s) => n + (v.bids[s] || 0), 0);
      const have = seats.reduce((n, s) => n + v.tricks_won[s], 0);
      const nils = seats.filter((s) => v.bids[s] === 0).map((s) => `${st.seatName(s)} nil`);
      const bags = v.bags?.[side] ?? 0;
      return h("span", { class: "contract" }, h("span", { class: "side-name" }, side === 0 ? "North–South" : "East–West"),
        ` bid ${bid}, have ${have}`,
        nils.length ? ` (${nils.join(", ")})` : "", `, ${bags} bag${bags === 1 ? "" : "s"}`, side === 0 ? " · " : "");
    }));
  }

  function renderSeat(el, seat) {
    const info = st.info?.seats?.[seat];
    const v = st.view;
    const pos = posOf(seat);
    const turn = v && (v.phase === "pass" ? !v.pass_chosen?.[seat] && v.phase === "pass" : v.to_act === seat);
    el.className = `seat pos-${POSITIONS[pos]}${turn ? " turn" : ""}${seat === st.seat ? " me" : ""}${info?.away ? " away" : ""}`;
    el.dataset.seat = seat;
    const badges = [];
    if (info?.kind === "robot") badges.push(h("span", { class: "badge robot", title: info.robot_level ? `${info.robot_level} robot` : "robot" }, "robot"));
    if (info?.away) badges.push(h("span", { class: "badge away", title: "Dropped: a robot plays this seat until they come back" }, "away · robot playing"));
    if (v && v.hand_no >= 0 && v.dealer === seat) badges.push(h("span", { class: "badge dealer", title: "Dealer" }, "D"));
    const stats = [];
    if (v && v.hand_no >= 0) {
      if (v.game === "spades") {
        const bid = v.bids?.[seat];
        const why = bid == null ? null : bidWhys[seat];
        stats.push(h("span", why ? { class: "bid", title: why } : { class: "bid" }, bid == null ? "bid —" : bid === 0 ? (v.blind?.[seat] ? "blind nil" : "nil") : `bid ${bid}`));
        stats.push(h("span", { class: "won" }, `won ${v.tricks_won[seat]}`));
      } else {
        stats.push(h("span", { class: "pts" }, pts(v.points_taken?.[seat] ?? 0)));
        stats.push(h("span", { class: "won" }, `${v.tricks_won[seat]} tricks`));
        stats.push(h("span", { class: "total hint" }, `total ${v.scores[seat]}`));
      }
    }
    const left = turn && st.turnStarted?.seat === seat && st.turnStarted.deadline
      ? (st.turnStarted.deadline - Date.now()) / 1000 : null;
    const canSit = st.seat == null && ((st.info?.state === "waiting" && info?.kind === "empty" && st.info.seating !== "random_seating")
      || (st.info?.state === "playing" && st.openSeats.has(seat)));
    fill(el,
      h("div", { class: "seat-name" }, h("span", { class: "dir", "aria-hidden": "true" }, SEAT_NAMES[seat][0]),
        h("span", { class: "nm" }, seatLabel(seat, info)),
        seat === st.seat ? h("span", { class: "you" }, " (you)") : null),
      badges.length ? h("div", { class: "badges" }, badges) : null,
      stats.length ? h("div", { class: "seat-stats" }, stats) : null,
      penaltyCards(seat),
      left != null && v.phase !== "pass" ? h("div", { class: `timer ${left < 8 ? "low" : ""}` }, `${seconds(left)} left`) : null,
      v && v.phase === "pass" && v.pass_chosen?.[seat] ? h("div", { class: "hint" }, "passed ✓") : null,
      // A robot's reason for its bid, under the seat while the bidding lasts (then its tooltip).
      v && v.game === "spades" && v.phase === "bid" && v.bids?.[seat] != null && bidWhys[seat]
        ? h("div", { class: "hint bid-why" }, bidWhys[seat]) : null,
      canSit ? h("button", { type: "button", class: "small", onclick: () => sit(seat) },
        st.info?.state === "playing" ? "Sit in as substitute" : "Sit here") : null);
    el.setAttribute("aria-label", `${SEAT_NAMES[seat]}: ${info?.name || "empty"}${turn ? ", to act" : ""}`);
  }

  /** The seat's name; a player who left an unfinished or finished game keeps theirs. */
  function seatLabel(seat, info) {
    if (info?.kind !== "empty") return info?.name || SEAT_NAMES[seat];
    if (st.view && st.view.hand_no >= 0 && st.names[seat]) return `${st.names[seat]} (left)`;
    return "empty seat";
  }

  /** Hearts: the scoring cards this seat has taken this hand, as the server counted them. */
  function penaltyCards(seat) {
    const v = st.view;
    if (!v || v.game !== "hearts" || v.hand_no < 0) return null;
    const cards = v.tricks.filter((t) => t.seat === seat).flatMap((t) => t.scoring || []);
    if (!cards.length) return null;
    return h("div", { class: "taken", "aria-label": `Taken: ${cards.map(cardName).join(", ")}` },
      cards.map((c) => cardEl(c, { cls: "mini" })));
  }

  /** The trick on the felt: each card in front of the seat that played it, the led card
   *  tagged, the winner ringed; `slide` sends the cards to the winner's side. */
  function trickCards(plays, winner, slide = false) {
    const to = winner == null ? null : POSITIONS[posOf(winner)];
    return h("div", { class: `trick${slide ? ` slide-${to}` : ""}` }, plays.map(({ seat, card }, i) => {
      const el = cardEl(card);
      el.setAttribute("aria-label", `${cardName(card)}, ${i === 0 ? "led " : ""}by ${who(seat)}${winner === seat ? ", winning" : ""}`);
      return h("div", { class: `played pos-${POSITIONS[posOf(seat)]}${winner === seat ? " winner" : ""}${i === 0 ? " led" : ""}` },
        el, i === 0 ? h("span", { class: "led-tag", "aria-hidden": "true" }, "led") : null);
    }));
  }

  function renderCenter() {
    const v = st.view;
    const info = st.info;
    const parts = [];
    if (!info) {
      parts.push(h("p", {}, "Loading…"));
    } else if (info.state === "waiting" || !v) {
      const rated = ctx.rooms.find((r) => r.name === info.room)?.rated;
      parts.push(h("div", { class: "center-note" },
        h("p", {}, "Waiting for four players."),
        st.seat != null && !rated && info.seats.some((s) => s.kind === "empty")
          ? h("button", { type: "button", class: "primary", onclick: () =>
            ctx.conn.request({ type: "fill_robots", table: id }).catch((err) => toast(err.message, "bad")) }, "Fill with robots")
          : null,
        st.seat == null && info.seats.some((s) => s.kind === "empty")
          ? h("button", { type: "button", class: "primary", onclick: () => sit(null) }, "Join this table") : null));
    } else if (showLast && st.lastTrick) {
      const t = st.lastTrick;
      const plays = t.cards.map((card, i) => ({ seat: (t.leader + i) % 4, card }));
      parts.push(h("div", { class: "last-trick", "aria-label": "The last trick" },
        trickCards(plays, t.seat),
        h("p", { class: "center-caption" }, `Last trick: ${who(t.seat)} won`, t.points ? ` (${pts(t.points)})` : "")));
    } else if (trickShowing()) {
      // The trick just won stays up with its winner ringed, then slides to the winner:
      // the slide is a CSS animation whose delay counts down the linger, so a render in
      // between picks it up where it is instead of starting it again.
      const age = Date.now() - st.justWon.at;
      const trick = trickCards(st.justWon.plays, st.justWon.seat, !reducedMotion());
      trick.style.setProperty("--slide-delay", `${TRICK_LINGER_MS - age}ms`);
      parts.push(trick, h("p", { class: "center-caption" }, `${who(st.justWon.seat)} won the trick`,
        st.justWon.points ? ` (${pts(st.justWon.points)})` : ""));
      setTimeout(schedule, trickEnds() - age + 10);
    } else {
      parts.push(trickCards(v.trick, null));
    }
    // A hand just scored: its summary first (once its last trick has gone), then any prompt.
    const dialog = summaryDue() ? (trickShowing() ? null : summaryPanel()) : promptPanel();
    // Every render draws the dialog anew: the focus stays on the same choice in it.
    const focusables = (box) => [...box.querySelectorAll("button, [tabindex]")];
    const held = promptBox.contains(document.activeElement)
      ? focusables(promptBox).indexOf(document.activeElement) : null;
    fill(promptBox, dialog);
    if (held != null && dialog) {
      const again = held < 0 ? dialog : focusables(promptBox)[held];
      if (again === dialog) dialog.tabIndex = -1;
      again?.focus();
    }
    focusDialog(dialog);
    if (dialog) { /* drawn over the felt */ } else if (v?.phase === "pass" && st.seat != null && v.pass_chosen?.[st.seat]) {
      parts.push(h("div", { class: "center-note" }, h("p", {}, "Passed ",
        (v.passed || []).map(cardShort).join(" "), ` to ${st.seatName((st.seat + DIRECTION_OFFSET[v.pass_direction]) % 4)}.`),
      h("p", { class: "hint" }, "Waiting for the others to pass.")));
    }
    fill(center, parts);
    renderReceived();
  }

  /** Keyboard play: a dialog that appears takes the focus, unless the player is typing
   *  somewhere: the summary its button, a pass the hand, a bid or the moon the dialog
   *  itself (Tab then walks its choices; no choice is one stray Enter away). */
  let dialogShown = null;
  function focusDialog(dialog) {
    const key = dialog ? `${dialog.className}:${st.view?.hand_no}:${st.view?.hand_results?.length}` : null;
    if (key === dialogShown) return;
    dialogShown = key;
    if (!dialog || document.activeElement?.closest?.("input, textarea, select, .table-chat")) return;
    requestAnimationFrame(() => {
      const target = dialog.classList.contains("pass-dialog") ? handEl.querySelector('.card[tabindex="0"]')
        : dialog.classList.contains("hand-summary") ? dialog.querySelector("button") : dialog;
      if (target === dialog) dialog.tabIndex = -1;
      target?.focus();
    });
  }

  const trickEnds = () => TRICK_LINGER_MS + (reducedMotion() ? 0 : TRICK_SLIDE_MS);
  const trickShowing = () => st.justWon && !st.view?.trick.length && Date.now() - st.justWon.at < trickEnds();

  /** The summary of the hand just scored, once its last trick has gone: it waits for
   *  the player to close it, even when the next hand is dealt (the turn timer runs). */
  function summaryDue() {
    const v = st.view;
    const n = v?.hand_results?.length || 0;
    if (!n || n === summaryDone || st.gameOver) return false;
    return v.phase === "hand_over" || (v.hand_no === n && !v.tricks.length && !v.trick.length);
  }

  function summaryPanel() {
    const v = st.view;
    const n = v.hand_results.length;
    const mine = st.ourTurn() && st.prompt;
    const next = !mine ? "the next hand" : { bid: "your bid", pass: "your pass", play: "play" }[st.prompt.phase] || "your turn";
    return handSummary({ game: v.game, number: n, result: v.hand_results[n - 1], scores: v.scores, names: names(), next,
      onContinue: () => { summaryDone = n; schedule(); } });
  }

  /** Hearts: the cards passed to us this hand, named with who passed them, until the
   *  first trick is over; the cards themselves are tagged in the hand. */
  function renderReceived() {
    const v = st.view;
    const got = v?.game === "hearts" && st.seat != null && v.phase === "play" && !v.tricks.length ? v.received || [] : [];
    if (!got.length) { receivedNote.hidden = true; return; }
    const from = (st.seat - DIRECTION_OFFSET[v.pass_direction] + 4) % 4;
    receivedNote.hidden = false;
    fill(receivedNote, h("span", { class: "recv-label" }, `You received from ${st.seatName(from)}: `),
      got.map((c) => h("b", { class: `recv-card ${SUITS[c[1]].red ? "red" : ""}` }, cardShort(c))));
  }

  function promptPanel() {
    if (!st.prompt || !st.ourTurn()) return null;
    return promptDialog(st.prompt, st.view, {
      seat: st.seat, seatName: (seat) => st.seatName(seat), selected, act,
      pass: () => { const cards = [...selected]; selected = new Set(); act({ type: "pass", cards }); },
    });
  }

  // -- the hand and keyboard play ---------------------------------------------------------------

  function legalCards() {
    const p = st.prompt;
    if (!p || !st.ourTurn()) return null;
    if (p.phase === "play") return new Set(p.legal.filter((a) => a.type === "play").map((a) => a.card));
    if (p.phase === "pass") return new Set(st.view.hand);
    return new Set();
  }

  /** Why a card cannot be played: the server's reason from the prompt (the rules are
   *  the engine's, not this client's); otherwise it is simply not our move. */
  function whyNot(card) {
    if (!st.prompt || !st.ourTurn()) return "It is not your turn.";
    if (st.prompt.phase !== "play") return "Finish the dialog first.";
    const reason = st.prompt.illegal?.find((x) => x.card === card)?.reason;
    return reason || `${cardName(card)} may not be played now.`;
  }

  function clickCard(card) {
    const legal = legalCards();
    const p = st.prompt;
    focusCard = card;
    if (!legal || !legal.has(card)) { handNote.textContent = whyNot(card); return; }
    handNote.textContent = "";
    if (p.phase === "pass") {
      if (selected.has(card)) selected.delete(card);
      else if (selected.size < (p.pass_count || 3)) selected.add(card);
      schedule();
      return;
    }
    if (p.phase === "play") act({ type: "play", card });
  }

  function renderHand() {
    const v = st.view;
    const hadFocus = handEl.contains(document.activeElement);
    const focused = hadFocus ? document.activeElement.dataset.card : focusCard;
    if (st.seat == null || !v || st.info?.state === "waiting") {
      fill(handEl, st.seat == null ? h("p", { class: "hint" }, "You are watching. Players' cards are hidden.") : null);
      handEl.hidden = st.seat == null ? false : true;
      return;
    }
    handEl.hidden = false;
    if (v.game === "spades" && v.sees_hand === false && !v.hand.length) {
      handEl.style.setProperty("--n", "13");
      fill(handEl, Array.from({ length: 13 }, () => cardBack("in-hand")));
      return;
    }
    const legal = legalCards();
    const passing = st.prompt?.phase === "pass" && st.ourTurn();
    const received = new Set(v.game === "hearts" && v.tricks.length === 0 ? v.received || [] : []);
    const cards = v.hand.map((card) => {
      const ok = legal?.has(card);
      const cls = [ok ? "legal" : "not-legal", selected.has(card) ? "chosen" : "", received.has(card) ? "received" : ""].join(" ");
      const el = cardEl(card, { onclick: () => clickCard(card), cls, disabled: !ok,
        pressed: passing ? selected.has(card) : undefined });
      if (received.has(card)) {
        el.append(h("span", { class: "new-tag", "aria-hidden": "true" }, "new"));
        el.setAttribute("aria-label", `${cardName(card)}, received`);
      }
      el.tabIndex = -1;
      return el;
    });
    handEl.style.setProperty("--n", String(Math.max(cards.length, 1)));
    fill(handEl, cards);
    if (!cards.length) return;
    // The card last focused keeps the focus, unless a card must be played and it may not be.
    const playing = st.prompt?.phase === "play" && st.ourTurn();
    const target = cards.find((c) => c.dataset.card === focused && (!playing || c.classList.contains("legal"))) ||
      cards.find((c) => c.classList.contains("legal")) || cards[0];
    target.tabIndex = 0;
    if (hadFocus) target.focus();
  }

  handEl.addEventListener("keydown", (e) => {
    const cards = [...handEl.querySelectorAll(".card")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: 1, ArrowDown: -1 }[e.key];
    const onlyLegal = st.prompt?.phase === "play" && st.ourTurn();
    let next = null;
    if (step) {
      for (let j = i + step; j >= 0 && j < cards.length; j += step) {
        if (!onlyLegal || cards[j].classList.contains("legal")) { next = cards[j]; break; }
      }
    } else if (e.key === "Home") next = cards.find((c) => !onlyLegal || c.classList.contains("legal"));
    else if (e.key === "End") next = cards.findLast((c) => !onlyLegal || c.classList.contains("legal"));
    else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      clickCard(cards[i].dataset.card);
      return;
    } else return;
    e.preventDefault();
    if (next) {
      cards.forEach((c) => { c.tabIndex = -1; });
      next.tabIndex = 0;
      next.focus();
      focusCard = next.dataset.card;
    }
  });

  // Arrow keys anywhere on the page (outside text fields) bring focus to the hand.
  const pageKeys = (e) => {
    if (!["ArrowLeft", "ArrowRight"].includes(e.key)) return;
    const t = e.target;
    if (t.closest?.("input, textarea, select, dialog, .hand")) return;
    const first = handEl.querySelector('.card[tabindex="0"]');
    if (first) { e.preventDefault(); first.focus(); }
  };
  document.addEventListener("keydown", pageKeys);

  // -- the score sheet, votes and game over ---------------------------------------------------------

  function renderSheet() {
    const v = st.view;
    if (!v || v.hand_no < 0) { fill(sheetEl, h("p", { class: "hint" }, "Scores appear after the first hand.")); return; }
    const rows = v.hand_results.length;
    // The newest hand stays in view: scroll to it when a row comes, and stay at the end
    // when the sheet is redrawn (unless the player has scrolled back to an older hand).
    const atEnd = sheetEl.scrollTop + sheetEl.clientHeight >= sheetEl.scrollHeight - 4;
    fill(sheetEl, scoreSheet(v.game, v.hand_results, names(), { target: v.rules?.target }));
    if (rows !== sheetRows || atEnd) sheetEl.scrollTop = sheetEl.scrollHeight;
    sheetRows = rows;
  }
  let sheetRows = -1;

  function renderVotes() {
    const open = [...st.votes.values()].filter((vote) => !vote.outcome || Date.now() - vote.closedAt < 4000);
    const vote = open.at(-1);
    if (!vote) { voteEl.hidden = true; fill(voteEl); return; }
    voteEl.hidden = false;
    const mine = votedFor.get(vote.vote) ?? (st.seat != null ? vote.cast[st.seat] : undefined);
    const canVote = !vote.outcome && st.seat != null && vote.voters?.includes(st.seat) && mine === undefined;
    const choices = vote.kind === "invite_robot"
      ? [["yes", "Invite a robot"], ["no", "Keep waiting"]]
      : [["wait", "Wait"], ["dont_wait", "Don't wait"]];
    const label = Object.fromEntries(choices);
    const left = Math.max(0, (vote.deadline - Date.now()) / 1000);
    fill(voteEl,
      h("h2", { id: "vote-h" }, vote.kind === "invite_robot"
        ? `${st.seatName(vote.seat)} has left. Invite a robot to their seat?`
        : `${st.seatName(vote.seat)} has dropped. Wait for them?`),
      vote.outcome
        ? h("p", { class: "vote-outcome" }, `Decided: ${label[vote.outcome] || vote.outcome}.`)
        : h("p", {}, vote.kind === "invite_robot" ? "A robot plays the seat until a substitute comes." :
          "Wait: the game pauses until they are back. Don't wait: a robot plays their seat and the game goes on unrated.",
        h("span", { class: `countdown ${left < 8 ? "low" : ""}` }, ` ${seconds(left)} left`)),
      h("ul", { class: "vote-list" }, (vote.voters || []).map((seat) => h("li", {},
        `${who(seat)}: `, vote.cast[seat] ? h("b", {}, label[vote.cast[seat]] || vote.cast[seat]) : h("span", { class: "hint" }, "not yet")))),
      canVote ? h("div", { class: "bid-row" }, choices.map(([value, text]) =>
        h("button", { type: "button", class: value === choices[0][0] ? "primary" : "", "data-vote": value,
          onclick: async () => {
            votedFor.set(vote.vote, value);
            schedule();
            try { await ctx.conn.request({ type: "vote", table: id, vote: vote.vote, choice: value }); }
            catch (err) { votedFor.delete(vote.vote); toast(err.message, "bad"); schedule(); }
          } }, text)))
        : mine !== undefined && !vote.outcome ? h("p", { class: "hint" }, `You voted: ${label[mine] || mine}.`) : null);
  }

  function renderGameOver() {
    const over = st.gameOver;
    if (!over || gameOverClosed) { if (overEl.open) overEl.close(); return; }
    const n = names();
    const v = st.view;
    const winners = over.winners || [];
    const youWon = st.seat != null && winners.includes(st.seat);
    let scoreRows;
    if ((v?.game || st.info?.game) === "spades") {
      scoreRows = [0, 1].map((side) => h("tr", { class: winners.includes(side) ? "won" : null },
        h("th", { scope: "row" }, sideName(n, side)), h("td", { class: "num" }, String(over.scores[side])),
        h("td", {}, winners.includes(side) ? "winners" : "")));
    } else {
      scoreRows = [0, 1, 2, 3].sort((a, b) => over.scores[a] - over.scores[b]).map((seat) =>
        h("tr", { class: winners.includes(seat) ? "won" : null }, h("th", { scope: "row" }, n[seat]),
          h("td", { class: "num" }, String(over.scores[seat])), h("td", {}, winners.includes(seat) ? "winner" : "")));
    }
    const winnerNames = winners.map((s) => (s === st.seat ? "you" : n[s]));
    fill(overEl,
      h("h2", { id: "over-h" }, "Game over"),
      over.abandoned ? h("p", {}, "The game ended early after a disconnection; it is scored as it stood.") : null,
      h("p", { class: "over-headline" }, st.seat == null ? `${winnerNames.join(" and ")} won.`
        : youWon ? "You won!" : `${winnerNames.join(" and ")} won.`),
      h("table", { class: "final-scores" }, h("caption", {}, "Final scores"), h("tbody", {}, scoreRows)),
      over.ratings?.length || chancesText(over.chances) ? h("section", { class: "ratings" }, h("h3", {}, "Rating changes"),
        chancesText(over.chances) ? h("p", { class: "chances" }, h("span", { class: "hint" }, "Chances before the game: "),
          chancesText(over.chances)) : null,
        over.ratings?.length ? h("ul", {}, over.ratings.map(ratingChange)) : null) : null,
      h("div", { class: "dialog-actions" },
        st.seat != null ? h("button", { type: "button", class: "primary", onclick: async () => {
          try { await ctx.conn.request({ type: "play_again", table: id }); toast("Waiting for the others to play again"); }
          catch (err) { toast(err.message, "bad"); }
        } }, "Play again") : null,
        st.gameId ? h("a", { class: "button", href: `#/review/${encodeURIComponent(st.gameId)}` }, "Review the game") : null,
        h("button", { type: "button", onclick: () => { gameOverClosed = true; schedule(); } }, "Look at the table"),
        h("button", { type: "button", onclick: leave }, "Back to lobby")));
    if (!overEl.open) overEl.showModal();
  }

  // -- messages ----------------------------------------------------------------------------------

  const ticker = setInterval(() => {
    if (st.turnStarted || [...st.votes.values()].some((x) => !x.outcome || Date.now() - x.closedAt < 4500)) {
      renderStatus();
      seatEls.forEach((el, pos) => renderSeat(el, seatAt(pos)));
      renderVotes();
    }
  }, 1000);

  join();

  return {
    unmount() {
      mounted = false;
      clearInterval(ticker);
      chat.destroy();
      document.removeEventListener("keydown", pageKeys);
      if (overEl.open) overEl.close();
    },
    onReconnect() { join(); },
    onMessage(msg) {
      if (msg.table !== id) return;
      if (msg.type === "event") {
        const before = st.view?.hand_no;
        if (!st.applyEvent(msg.seq, msg.event, msg.turn)) return;
        const type = msg.event.type;
        if (type === "game_started") {
          gameOverClosed = false;
          votedFor = new Map();
          summaryDone = -1;
          const chances = chancesText(st.chances);
          if (chances) toast(`Game on. Chances: ${chances}`, "info", 8000);
        }
        if (type === "hand_started" || (type === "hand_started" && before !== st.view?.hand_no)) selected = new Set();
        if (type === "hand_started") bidWhys = [null, null, null, null];
        if (type === "bid") bidWhys[msg.event.seat] = msg.event.why || null;
        if (type === "trick_won") { showLast = false; playSound("trick"); }
        if (type === "played" && msg.event.seat !== st.seat) playSound("card");
        for (const note of st.announcements.splice(0)) {
          toast(note.text, "info", 7000);
          if (note.rating) toast(`${note.rating.player}: rating ${note.rating.delta >= 0 ? "+" : ""}${Math.round(note.rating.delta * 10) / 10}`, "info", 7000);
        }
        if (type === "vote_result") {
          const vote = st.votes.get(msg.event.vote);
          toast(`Vote decided: ${msg.event.outcome}`);
          if (vote) setTimeout(schedule, 4100);
        }
        schedule();
      } else if (msg.type === "prompt") {
        if (msg.seq < st.seq) return;
        if (msg.phase !== "pass") selected = new Set();
        if (!st.prompt) playSound("turn");
        st.applyPrompt(msg);
        schedule();
      } else if (msg.type === "snapshot") {
        st.applySnapshot(msg);
        closeOldSummary();
        schedule();
      } else if (msg.type === "skip") {
        if (msg.seq > st.seq) st.seq = msg.seq; // another seat's private event: numbered, unseen
      } else if (msg.type === "taken_over") {
        // The same player opened this seat in another window: this one only watches now.
        st.seat = null;
        toast("You are playing this seat from another window; this one now watches.", "info", 7000);
        ctx.conn.request({ type: "watch", table: id })
          .then((snap) => { st.applySnapshot(snap); schedule(); })
          .catch((err) => toast(err.message, "bad"));
      } else if (msg.type === "error" && msg.id == null) {
        toast(msg.message, "bad", 7000);
      }
    },
  };
}
