// The table page: seats around the felt, the trick in the middle, our hand at
// the bottom, and the dialogs for bidding, passing, the moon, votes and game over.
//
// This module is the page's controller, the way Lichess's round UI is built: it keeps
// the table's state (one value, tablestate.js), moves it on with reduce() for every
// message from the server and every choice of the player, sends the requests, plays
// the sounds and shows the toasts. The views (tablebar, tableseat, tablefelt,
// tablehand, tablevote, gameover, the score sheet) only draw the state; every render
// draws each region anew from it, so what is drawn is always what the state says.

import { t, date, signed } from "./i18n.js";
import { h, fill, toast, sentence } from "./dom.js";
import { SEAT_NAMES } from "./cards.js";
import { initialState, reduce } from "./tablestate.js";
import { legalCards, ourTurn, seatAt, seatName, seatNames, trickShowing } from "./tableselectors.js";
import { chatPanel } from "./chat.js";
import { invitePanel } from "./tableinvite.js";
import { scoreSheet, sheetBox } from "./scoresheet.js";
import { chancesText, drawBar, drawContract, drawStatus } from "./tablebar.js";
import { drawSeat } from "./tableseat.js";
import { feltView, trickEnds } from "./tablefelt.js";
import { handView } from "./tablehand.js";
import { drawVote } from "./tablevote.js";
import { gameOverView } from "./gameover.js";
import { drawField } from "./tablefield.js";
import { play as playSound, soundOn, setSound } from "./sound.js";

/** What a table event says to the player in a toast, beyond what the table draws. */
function announcements(state, ev) {
  if (ev.type === "game_started") {
    const chances = chancesText(state, state.chances);
    return chances ? [[t("toast.game_on", { chances }), 8000]] : [];
  }
  if (ev.type === "quit") {
    const name = ev.player || seatName(state, ev.seat);
    const notes = [[ev.banned_until ? t("toast.quit_banned", { name, until: date(ev.banned_until * 1000, { dateStyle: "medium", timeStyle: "short" }) })
      : t("toast.quit", { name }), 7000]];
    const r = ev.rating;
    if (r) notes.push([t("toast.quit_rating", { name: r.player, delta: signed(Math.round(r.delta * 10) / 10) }), 7000]);
    return notes;
  }
  if (ev.type === "substitute") return [[t("toast.substitute", { name: ev.name, seat: SEAT_NAMES[ev.seat] }), 7000]];
  if (ev.type === "vote_result") return [[t("toast.vote", { outcome: ev.outcome }), 4000]];
  return [];
}

export function mount(main, ctx, params) {
  const id = params.id;
  let state = initialState(id);
  let mounted = true;
  let renderQueued = false;
  let acting = false; // an action is on its way: a second press waits for its answer

  const root = h("section", { class: "table-page", "aria-label": t("table.label", { id }) });
  const bar = h("header", { class: "table-bar" });
  const statusLine = h("p", { class: "turn-status", role: "status", "aria-live": "polite" });
  const contractLine = h("p", { class: "contract-line hint" });
  const felt = h("div", { class: "felt" });
  const seatEls = [0, 1, 2, 3].map(() => h("div", { class: "seat", role: "group" }));
  const center = h("div", { class: "center" });
  const promptBox = h("div", { class: "prompt-box" });
  const handEl = h("div", { class: "hand", role: "toolbar", "aria-label": t("table.your_hand"), "aria-orientation": "horizontal" });
  const handNote = h("p", { class: "hand-note", "aria-live": "polite" });
  const receivedNote = h("p", { class: "received-note", hidden: true });
  const sheetEl = h("div", { class: "sheet-box" });
  const fieldEl = h("div", { class: "field-box", "aria-live": "polite", hidden: true });
  const chatBox = h("div", { class: "table-chat" });
  const voteEl = h("div", { class: "vote-box", role: "alertdialog", "aria-labelledby": "vote-h", hidden: true });
  const overEl = h("dialog", { class: "game-over", "aria-labelledby": "over-h" });
  const invite = invitePanel(ctx, id); // a private table's link and, for its opener, its seats
  // Our nameplate with the notes beside it (what we received, why a card was refused):
  // a note never pushes the hand down where there is room beside the nameplate.
  const mine = h("div", { class: "my-area" }, h("div", { class: "my-line" }, seatEls[0], receivedNote, handNote), handEl);
  felt.append(seatEls[1], seatEls[2], seatEls[3], center, promptBox, mine);
  fill(main, root);
  // The stage (the bar, the turn, the felt) fills the screen below the site's header;
  // the side panel sits beside it on a wide screen, below it on a narrow one.
  root.append(h("div", { class: "table-stage" }, bar, statusLine, contractLine,
    h("div", { class: "table-main" }, felt)),
    h("aside", { class: "table-side" }, invite.el, fieldEl, h("h2", {}, t("table.scores")), sheetEl, h("h2", {}, t("table.chat")), chatBox),
    voteEl, overEl);

  const chat = chatPanel(ctx, { key: `table:${id}`, title: t("table.chat"),
    send: (text) => ctx.conn.request({ type: "chat", table: id, text }) });
  // Spectators' chat during a game is the table's choice (off unless its players allow it).
  const spectatorBox = h("input", { type: "checkbox", onchange: async () => {
    try {
      await ctx.conn.request({ type: "table_options", table: id, spectator_chat: spectatorBox.checked });
    } catch (err) { toast(err.message, "bad"); }
  } });
  const spectatorOption = h("label", { class: "hint spectator-chat" }, spectatorBox,
    " ", t("table.spectators_may"));
  const spectatorNote = h("p", { class: "hint spectator-chat" },
    t("table.spectators_cannot"));
  chatBox.append(chat.el, spectatorOption, spectatorNote);

  // -- the state ------------------------------------------------------------------------------

  /** Move the state on by one message (the server's or the player's) and draw it. */
  function dispatch(message) {
    const before = state;
    state = reduce(state, message, Date.now());
    if (state !== before) schedule();
    return before;
  }

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

  /** Take our seat back with its token (and be sent what we missed), or watch. */
  async function join() {
    const seat = ctx.seatAt(id);
    try {
      if (seat) {
        try {
          const reply = await ctx.conn.request({ type: "rejoin", table: id, seat_token: seat.token, last_seq: state.seq });
          dispatch({ type: "seated", seat: seat.seat });
          if (reply.type === "snapshot") dispatch(reply);
          // A seat the queue gave comes without its room: kept now, the lobby finds the
          // game again after the tab is closed.
          if (!seat.room && state.info?.room) ctx.rememberSeat(id, seat.seat, seat.token, state.info.room);
          return;
        } catch (err) {
          if (err.code !== "not_authorized") throw err;
          ctx.forgetSeat(id); // the window passed, or the seat is gone: watch instead
          dispatch({ type: "watching" });
        }
      }
      dispatch(await ctx.conn.request({ type: "watch", table: id, ...(ctx.invites[id] ? { invite: ctx.invites[id] } : {}) }));
    } catch (err) {
      fill(root, h("div", { class: "panel" }, h("h1", {}, t("table.not_found")), h("p", {}, sentence(err.message)),
        h("a", { href: "#/" }, t("table.back_to_lobby_long"))));
      mounted = false;
    }
  }

  async function sit(seat) {
    try {
      const reply = await ctx.conn.request({ type: "sit", table: id, seat });
      ctx.rememberSeat(id, reply.seat, reply.seat_token, state.info?.room);
      dispatch(reply);
    } catch (err) { toast(err.message, "bad"); }
  }

  async function leave() {
    if (state.seat != null && state.info?.state === "playing" &&
        !confirm(t("table.leave_confirm"))) return;
    if (state.seat != null && state.info?.state !== "over") {
      await ctx.conn.request({ type: "stand", table: id }).catch(() => {});
    }
    ctx.forgetSeat(id);
    ctx.navigate(state.info?.room ? `/room/${encodeURIComponent(state.info.room)}` : "/");
  }

  async function vote(voteId, choice) {
    dispatch({ type: "vote_chosen", vote: voteId, choice });
    try { await ctx.conn.request({ type: "vote", table: id, vote: voteId, choice }); }
    catch (err) { dispatch({ type: "vote_refused", vote: voteId }); toast(err.message, "bad"); }
  }

  /** "Waiting for the others to play again" stays until the new game starts (which may
   *  be before the server's answer comes: then it never shows). */
  let waitingAgain = null;
  async function playAgain(rotate = false) {
    try {
      await ctx.conn.request({ type: "play_again", table: id, seats: rotate ? "rotate" : "keep" });
      if (state.gameOver && !waitingAgain) waitingAgain = toast(t("toast.waiting_again"), "info", null);
    } catch (err) { toast(err.message, "bad"); }
  }
  function stopWaitingAgain() {
    waitingAgain?.();
    waitingAgain = null;
  }

  /** A card pressed in the hand: played when it may be, chosen for a pass, or explained. */
  function pressCard(card) {
    const playable = legalCards(state)?.has(card) && state.prompt.phase === "play";
    dispatch({ type: "press_card", card });
    hand.note(state); // the reason shows at once, not at the next frame
    if (playable) act({ type: "play", card });
  }

  function pass() {
    const cards = state.chosen;
    dispatch({ type: "pass_sent" });
    act({ type: "pass", cards });
  }

  // -- the views --------------------------------------------------------------------------------

  const intents = {
    dispatch, act, pass, sit, leave, vote, playAgain,
    fillRobots: () => ctx.conn.request({ type: "fill_robots", table: id }),
    roomRated: () => ctx.rooms.find((r) => r.name === state.info?.room)?.rated,
    // Watching our own seat while a robot plays it (the newer window that took it has
    // closed): the seat is ours to take back with its token, without a reload.
    mineToTakeBack: (seat) => {
      const mine = ctx.seatAt(id);
      const info = state.info?.seats?.[seat];
      return state.seat == null && mine?.seat === seat && !!info?.away && info.name === ctx.me?.name;
    },
    takeBack: () => join(),
    toggleSound: () => { setSound(!soundOn()); schedule(); },
    toggleLastTrick: () => dispatch({ type: "toggle_last_trick" }),
    openResults: () => dispatch({ type: "open_results" }),
  };
  const middle = feltView({ center, promptBox, receivedNote, handEl }, intents);
  const hand = handView({ handEl, noteEl: handNote }, { pressCard, state: () => state });
  const sheet = sheetBox(sheetEl);
  const gameOver = gameOverView(overEl, intents);

  function schedule() {
    if (renderQueued || !mounted) return;
    renderQueued = true;
    requestAnimationFrame(() => { renderQueued = false; if (mounted) render(); });
  }

  function drawSheet() {
    const v = state.view;
    if (!v || v.hand_no < 0) { sheet.note(h("p", { class: "hint" }, t("table.scores_later"))); return; }
    sheet.draw(scoreSheet(v.game, v.hand_results, seatNames(state), { target: v.rules?.target }), v.hand_results.length);
  }

  /** The parts that count down: the turn's clock and the vote's. */
  function drawClocks(now) {
    drawStatus(statusLine, state, now);
    seatEls.forEach((el, place) => drawSeat(el, state, seatAt(state, place), now, intents));
    drawVote(voteEl, state, now, intents);
  }

  function drawSpectatorChat() {
    const allowed = !!state.info?.spectator_chat;
    spectatorOption.hidden = state.seat == null;
    spectatorBox.checked = allowed;
    spectatorNote.hidden = state.seat != null || allowed || state.info?.state !== "playing";
  }

  function render() {
    const now = Date.now();
    const v = state.view;
    root.dataset.phase = v?.phase || state.info?.state || "loading";
    root.dataset.myTurn = String(ourTurn(state) && !!state.prompt);
    root.dataset.seat = state.seat ?? "watching";
    drawBar(bar, state, intents);
    drawContract(contractLine, state);
    drawClocks(now);
    middle.draw(state, now);
    hand.draw(state);
    drawSheet();
    drawField(fieldEl, state);
    drawSpectatorChat();
    invite.draw(state);
    gameOver.draw(state);
    // A won trick lingers, then slides away: draw the felt again once it has gone.
    if (trickShowing(state, now, trickEnds())) setTimeout(schedule, trickEnds() - (now - state.justWon.at) + 10);
  }

  const ticker = setInterval(() => {
    const now = Date.now();
    if (state.countdown || state.votes.some((x) => !x.outcome || now - x.closedAt < 4500)) drawClocks(now);
  }, 1000);

  // -- messages ----------------------------------------------------------------------------------

  /** What a message does besides changing the state: sounds, toasts, requests. */
  function effects(before, msg) {
    if (state.behind && !before.behind) { join(); return; } // a message was lost: rejoin
    if (msg.type === "prompt" && !before.prompt) playSound("turn");
    if (msg.type === "taken_over") {
      toast(t("toast.other_window"), "info", 7000);
      ctx.conn.request({ type: "watch", table: id, ...(ctx.invites[id] ? { invite: ctx.invites[id] } : {}) }).then(dispatch).catch((err) => toast(err.message, "bad"));
    }
    if (msg.type !== "event") return;
    const ev = msg.event;
    if (ev.type === "game_started" || ev.type === "table" && ev.info?.state !== "over") stopWaitingAgain();
    if (ev.type === "trick_won") playSound("trick");
    if (ev.type === "played" && ev.seat !== state.seat) playSound("card");
    for (const [text, ms] of announcements(state, ev)) toast(text, "info", ms);
    if (ev.type === "vote_result") setTimeout(schedule, 4100); // its outcome shows for a while
  }

  join();
  // At a table, a server gone silent (a paused machine) is left within a few seconds: the
  // table's new node takes it over as fast, and the player rejoins it there.
  ctx.conn.setLiveness(2000, 2000);

  return {
    unmount() {
      mounted = false;
      ctx.conn.setLiveness(15000, 5000);
      clearInterval(ticker);
      stopWaitingAgain();
      chat.destroy();
      hand.destroy();
      sheet.destroy();
      if (overEl.open) overEl.close();
    },
    onReconnect() { join(); },
    onMessage(msg) {
      if (msg.table !== id) return;
      if (msg.type === "error") {
        if (msg.id == null) toast(msg.message, "bad", 7000);
        return;
      }
      const before = dispatch(msg);
      if (state !== before) effects(before, msg);
    },
  };
}
