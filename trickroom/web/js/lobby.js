// The lobby: rooms, a room's tables and seats, creating a table, joining,
// watching, robots, the ranked random queue, and the room's chat.

import { inviteLink } from "./join.js";
import { h, fill, toast, seconds, sentence } from "./dom.js";
import { SEAT_NAMES } from "./cards.js";
import { chatPanel } from "./chat.js";
import { getJSON } from "./net.js";
import { count } from "./counts.js";

const SYSTEM_NAMES = {
  zone: "Zone", zone_tuned: "Zone (tuned)", wocg: "WoCG Elo", wocg_tuned: "WoCG (tuned)",
  points_en: "Ranking points", points_el: "Ranking points (el)", openskill: "OpenSkill",
  openskill_tuned: "OpenSkill (tuned)",
};
export const systemName = (s) => SYSTEM_NAMES[s] || s;
const gameName = (g) => (g === "hearts" ? "Hearts" : "Spades");

export function mount(main, ctx, params) {
  let room = null; // the RoomInfo on screen
  const tables = new Map();
  let cut = null; // { listed, total } when the room has more tables than its list gave
  let queue = null; // the last queue_status for this room
  let chat = null;
  let shownRoom = null; // the room the strip was last scrolled to
  let myGame = null; // a game going on with this player seated (TableInfo), if any

  const alert = h("div", { class: "refusal", role: "alert", hidden: true });
  const roomNav = h("nav", { class: "rooms", "aria-label": "Rooms" });
  const roomHead = h("div", { class: "room-head" });
  const queueBox = h("div", { class: "queue" });
  const tableList = h("ul", { class: "table-list", "aria-label": "Tables" });
  const chatBox = h("div", { class: "room-chat" });
  const dialog = createDialog();

  fill(main, h("section", { class: "lobby" },
    h("h1", { class: "sr-only" }, "Lobby"),
    roomNav,
    h("div", { class: "room" }, alert, roomHead, queueBox, tableList),
    chatBox, dialog.el));

  function refuse(err) {
    alert.hidden = false;
    const why = err.code === "not_eligible" ? "You may not sit at a ranked table yet: " : "";
    fill(alert, h("strong", {}, why || "Refused: "), err.message,
      h("button", { type: "button", class: "link", onclick: () => { alert.hidden = true; } }, "Dismiss"));
  }

  async function loadRooms() {
    const [reply, games] = await Promise.all([ctx.conn.request({ type: "list_rooms" }), myGames()]);
    ctx.rooms = reply.rooms;
    myGame = games[0] || null;
    // Back after closing the tab: the lobby opens on the room of the game going on.
    const wantedName = params.room || myGame?.room;
    const wanted = reply.rooms.find((r) => r.name === wantedName) || reply.rooms[0];
    renderRooms(wanted);
    if (wanted) await openRoom(wanted);
  }

  /** The games going on with this player in a seat (a robot plays it while they are away),
   *  newest first: the tables this browser remembers a seat at, as their rooms list them
   *  now (GET /api/tables: the listing, without subscribing to each room). */
  async function myGames() {
    const remembered = Object.entries(ctx.seats).filter(([, s]) => s.room)
      .sort((a, b) => (b[1].at || 0) - (a[1].at || 0)).slice(0, 4);
    const rooms = [...new Set(remembered.map(([, s]) => s.room))];
    const listed = await Promise.all(rooms.map((r) =>
      getJSON(`/api/tables?room=${encodeURIComponent(r)}`).then((data) => data?.tables || []).catch(() => [])));
    const byId = new Map(listed.flat().map((t) => [t.id, t]));
    return remembered.map(([id]) => byId.get(id)).filter((t) => t && t.state === "playing" && mySeatAt(t));
  }

  /** "Your game is on": from any room, the way back to the seat. */
  function myGameNote() {
    if (!myGame) return null;
    const seat = mySeatAt(myGame);
    return h("div", { class: "my-game", role: "status" },
      h("strong", {}, `Your game is on in room ${myGame.room}`),
      ` (table ${myGame.id})${seat?.away ? ": a robot plays your seat until you are back." : "."} `,
      h("button", { type: "button", class: "primary", onclick: () => ctx.navigate(`/table/${myGame.id}`) }, "Back to my seat"));
  }

  function renderRooms(current) {
    const scrolled = roomNav.querySelector("ul")?.scrollLeft || 0;
    fill(roomNav, h("h2", {}, "Rooms"), h("ul", {}, ctx.rooms.map((r) =>
      h("li", {}, h("a", {
        href: `#/room/${encodeURIComponent(r.name)}`, class: "room-link",
        "aria-current": r.name === current?.name ? "page" : null,
        onclick: (e) => { e.preventDefault(); history.replaceState(null, "", `#/room/${encodeURIComponent(r.name)}`); openRoom(r); },
      },
      h("span", { class: "room-name" }, r.name),
      h("span", { class: `badge ${r.rated ? "ranked" : "casual"}` }, r.rated ? `Ranked · ${systemName(r.system)}` : "Casual"),
      h("span", { class: "room-game" }, `${gameName(r.game)} · ${count(r.tables, "table")}`))))));
    // Once a room is chosen: a later redraw (a count changed) leaves the strip where the
    // player scrolled it.
    roomNav.querySelector("ul").scrollLeft = scrolled;
    if (current && current.name !== shownRoom) requestAnimationFrame(() => showCurrentRoom());
    shownRoom = current?.name;
  }

  /** On a phone the rooms are a strip that scrolls sideways: bring the room on screen into
   *  it (the strip alone scrolls, not the page). */
  function showCurrentRoom() {
    const strip = roomNav.querySelector("ul");
    const link = roomNav.querySelector('.room-link[aria-current="page"]');
    if (!strip || !link || strip.scrollWidth <= strip.clientWidth) return;
    const s = strip.getBoundingClientRect();
    const l = link.getBoundingClientRect();
    strip.scrollLeft += (l.left - s.left) - (s.width - l.width) / 2;
  }

  /** A table of the room on screen opened or closed (its listing push): the room's count
   *  in the strip follows, as the list beside it does. */
  function countTable(id, removed) {
    const r = ctx.rooms.find((x) => x.name === room?.name);
    if (!r) return;
    const change = removed ? (tables.has(id) ? -1 : 0) : (tables.has(id) ? 0 : 1);
    if (!change) return;
    r.tables = Math.max(0, r.tables + change);
    if (room !== r) room.tables = r.tables;
    renderRooms(room);
  }

  async function openRoom(r) {
    room = r;
    queue = null;
    alert.hidden = true;
    renderRooms(r);
    // The rooms again: their counts, and whether this player may sit in the ranked ones
    // now (a casual game finished since, "rank me" turned on), said before any click.
    const rooms = await ctx.conn.request({ type: "list_rooms" }).then((reply) => reply.rooms).catch(() => null);
    if (rooms) {
      ctx.rooms = rooms;
      room = rooms.find((x) => x.name === r.name) || r;
      renderRooms(room);
    }
    const reply = await ctx.conn.request({ type: "list_tables", room: r.name });
    tables.clear();
    for (const t of reply.tables) tables.set(t.id, t);
    cut = reply.total > reply.tables.length ? { listed: reply.tables.length, total: reply.total } : null;
    renderRoom();
    chat?.destroy();
    chat = chatPanel(ctx, { key: `room:${r.name}`, title: `Room chat: ${r.name}`,
      send: (text) => ctx.conn.request({ type: "chat", room: r.name, text }) });
    fill(chatBox, h("h2", {}, "Room chat"), chat.el);
  }

  function renderRoom() {
    if (!room) return;
    const rules = Object.entries(room.rules || {}).filter(([k]) => ["target", "mercy", "blind_nil", "moon"].includes(k))
      .map(([k, v]) => `${k.replace("_", " ")} ${v === null || v === false ? "off" : v === true ? "on" : String(v).replaceAll("_", " ")}`).join(" · ");
    fill(roomHead,
      myGameNote(),
      h("h2", {}, room.name, " ", h("span", { class: `badge ${room.rated ? "ranked" : "casual"}` },
        room.rated ? `Ranked · ${systemName(room.system)}` : "Casual")),
      h("p", { class: "hint" }, `${gameName(room.game)}${rules ? ` · ${rules}` : ""}`),
      notEligible(),
      h("div", { class: "room-actions" },
        h("button", { type: "button", class: "primary", onclick: () => dialog.open(room),
          disabled: barred() ? true : null, "aria-describedby": barred() ? "not-eligible" : null }, "Create table")));
    renderQueue();
    renderTables();
  }

  /** Why this player may not sit in the ranked room on screen (the server's words), or null. */
  const barred = () => (room?.rated && room.not_eligible) || null;

  function notEligible() {
    if (!barred()) return null;
    return h("p", { class: "eligibility", id: "not-eligible" },
      h("strong", {}, "You may not sit at ranked tables yet. "), sentence(barred()),
      ctx.me && !ctx.me.guest ? [" ", h("a", { href: `#/player/${encodeURIComponent(ctx.me.name)}` }, "Your casual games")] : null);
  }

  function renderQueue() {
    if (!room?.rated) { fill(queueBox); queueBox.hidden = true; return; }
    queueBox.hidden = false;
    const inQueue = queue?.queued;
    fill(queueBox,
      h("h3", {}, "Random queue"),
      h("p", { class: "queue-status", "aria-live": "polite" }, queue
        ? `${count(queue.length, "player")} waiting` +
          (queue.expected_wait != null ? ` · expected wait ${queue.expected_wait < 5 ? "a few seconds" : `about ${seconds(queue.expected_wait)}`}` : "") +
          (inQueue ? " · you are in the queue" : "")
        : "Join the queue to be seated at random with three other players (this weighs most in ratings)."),
      h("button", { type: "button", class: inQueue ? "" : "primary",
        disabled: !inQueue && barred() ? true : null, "aria-describedby": barred() ? "not-eligible" : null,
        onclick: () => ctx.conn.request({ type: inQueue ? "unqueue" : "queue", room: room.name })
          .then((reply) => { if (reply.type === "queue_status") { queue = reply; renderQueue(); } })
          .catch(refuse) },
      inQueue ? "Leave the queue" : "Join the queue"));
  }

  function mySeatAt(t) {
    return t.seats.find((s) => s.kind === "human" && s.name === ctx.me?.name);
  }

  async function sit(t, seat) {
    try {
      const reply = await ctx.conn.request({ type: "sit", table: t.id, ...(seat == null ? {} : { seat }) });
      ctx.rememberSeat(t.id, reply.seat, reply.seat_token, t.room);
      ctx.navigate(`/table/${t.id}`);
    } catch (err) { refuse(err); }
  }

  function renderTables() {
    const list = [...tables.values()];
    if (!list.length) {
      fill(tableList, h("li", { class: "empty-note" }, "No tables yet. Create one, then sit and (in casual rooms) fill the other seats with robots."));
      return;
    }
    const order = { waiting: 0, playing: 1, over: 2 };
    list.sort((a, b) => order[a.state] - order[b.state]);
    fill(tableList, list.map((t) => {
      const mine = mySeatAt(t);
      const empty = t.seats.some((s) => s.kind === "empty");
      const waiting = t.state === "waiting";
      return h("li", { class: `table-card ${t.state}`, "data-table": t.id },
        h("div", { class: "tc-head" },
          h("strong", {}, `Table ${t.id}`),
          h("span", { class: `state ${t.state}` }, { waiting: "waiting for players", playing: "playing", over: "game over" }[t.state]),
          waiting ? h("span", { class: "hint" }, { random_seating: "random seats", random_queue: "from the queue" }[t.seating] || "pick your seat") : null,
          t.watchers ? h("span", { class: "hint" }, `${t.watchers} watching`) : null),
        h("ul", { class: "tc-seats" }, t.seats.map((s) => h("li", { class: `seat-line ${s.kind}` },
          h("span", { class: "seat-dir" }, SEAT_NAMES[s.seat]),
          s.kind === "empty"
            ? (waiting && !mine && t.seating !== "random_seating" && !barred()
              ? h("button", { type: "button", class: "small", onclick: () => sit(t, s.seat) }, "Sit here")
              : h("span", { class: "hint" }, "empty"))
            : h("span", { class: "seat-who" }, s.name,
              s.bot ? h("span", { class: "badge bot", title: "A BOT account: a program plays here" }, "BOT") : null,
              s.kind === "robot" ? h("span", { class: "badge robot" }, "robot") : null,
              s.away ? h("span", { class: "badge away" }, "away") : null)))),
        h("div", { class: "tc-actions" },
          mine ? h("button", { type: "button", class: "primary", onclick: () => ctx.navigate(`/table/${t.id}`) }, "Back to my seat")
            : waiting && empty && !barred() ? h("button", { type: "button", class: "primary", onclick: () => sit(t, null) }, "Join") : null,
          h("button", { type: "button", onclick: () => ctx.navigate(`/table/${t.id}`) }, "Watch"),
          !room.rated && waiting && empty ? h("button", { type: "button",
            onclick: () => ctx.conn.request({ type: "fill_robots", table: t.id }).catch(refuse) }, "Fill with robots") : null));
    }), cut ? h("li", { class: "empty-note list-cut" },
      `The room had ${count(cut.total, "table")} open; the server listed ${cut.listed} of them, those waiting for players first.`) : null);
  }

  function createDialog() {
    const el = h("dialog", { class: "create-dialog", "aria-labelledby": "create-h" });
    let forRoom = null;
    const form = h("form", { method: "dialog" });
    el.append(form);

    // The rule fields come from the server (GET /api/rules): their names, kinds, bounds,
    // defaults and labels. The common ones are shown; the others fold under "More rules".
    function ruleField(rule, value) {
      if (rule.type === "bool") {
        return h("label", { class: "check", title: rule.help },
          h("input", { type: "checkbox", name: rule.name, checked: value ? true : null }), rule.label);
      }
      if (rule.type === "int") {
        return h("label", { class: "field", title: rule.help }, h("span", {}, rule.label),
          h("input", { type: "number", name: rule.name, value: value ?? "", min: rule.min, max: rule.max,
            required: rule.nullable ? null : true }));
      }
      const current = JSON.stringify(value);
      return h("label", { class: "field", title: rule.help }, h("span", {}, rule.label),
        h("select", { name: rule.name }, rule.choices.map((c) => h("option", { value: JSON.stringify(c.value),
          selected: JSON.stringify(c.value) === current ? true : null }, c.label))));
    }

    const valueText = (rule, v) => {
      if (v === null || v === false) return "off";
      if (v === true) return "on";
      const choice = rule.choices?.find((c) => JSON.stringify(c.value) === JSON.stringify(v));
      return choice ? choice.label : String(v);
    };

    function rulesFields(r) {
      const rules = r.rules || {};
      const catalogue = ruleCatalogue?.[r.game];
      if (!catalogue) return [h("p", { class: "hint" }, "Loading the rules…")];
      const value = (rule) => (rule.name in rules ? rules[rule.name] : rule.default);
      if (r.rated) {
        // A ranked room plays its host's rules: shown, not chosen (the server refuses others).
        return [h("p", { class: "hint host-rules" }, "Ranked rooms play the host's rules: ",
          catalogue.filter((rule) => rule.common).map((rule) => `${rule.label}: ${valueText(rule, value(rule))}`).join(" · "), ".")];
      }
      return [
        ...catalogue.filter((rule) => rule.common).map((rule) => ruleField(rule, value(rule))),
        h("details", { class: "more-rules" }, h("summary", {}, "More rules"),
          catalogue.filter((rule) => !rule.common).map((rule) => ruleField(rule, value(rule)))),
      ];
    }

    function render(r) {
      forRoom = r;
      const sameGame = ctx.rooms;
      fill(form,
        h("h2", { id: "create-h" }, "Create a table"),
        h("label", { class: "field" }, h("span", {}, "Game and room"),
          h("select", { name: "room", onchange: (e) => render(ctx.rooms.find((x) => x.name === e.target.value)) },
            sameGame.map((x) => h("option", { value: x.name, selected: x.name === r.name ? true : null },
              `${gameName(x.game)} — ${x.name} (${x.rated ? `ranked, ${systemName(x.system)}` : "casual"})`)))),
        h("fieldset", {}, h("legend", {}, "Rules"), rulesFields(r)),
        h("fieldset", {}, h("legend", {}, "Seating"),
          h("label", { class: "check" }, h("input", { type: "radio", name: "seating", value: "fixed_seating", checked: true }),
            "Players pick their seats and partners"),
          h("label", { class: "check" }, h("input", { type: "radio", name: "seating", value: "random_seating" }),
            "Seats are drawn at random")),
        r.rated ? null : h("label", { class: "check" }, h("input", { type: "checkbox", name: "private" }),
          "Private: listed to no one; friends come in by the invite link you send them"),
        // A sandbox (issue 36): the bench's duplicate method, for everyone (a private table).
        r.rated ? null : h("label", { class: "check" }, h("input", { type: "checkbox", name: "duplicate" }),
          "Duplicate match: the same deals played again, everyone one seat on, each deal scored against the others who held the cards (by invite only)"),
        h("p", { class: "error", role: "alert" }),
        h("div", { class: "dialog-actions" },
          h("button", { type: "button", onclick: () => el.close() }, "Cancel"),
          h("button", { type: "submit", class: "primary", value: "create" }, "Create and sit")));
    }

    function rulesFrom(data, r) {
      const base = r.rules || {};
      const out = {};
      for (const rule of ruleCatalogue[r.game]) {
        const raw = data.get(rule.name);
        const value = rule.type === "bool" ? data.has(rule.name)
          : rule.type === "int" ? (raw === "" || raw == null ? null : Number(raw))
            : JSON.parse(raw);
        const before = rule.name in base ? base[rule.name] : rule.default;
        if (JSON.stringify(before) !== JSON.stringify(value)) out[rule.name] = value;
      }
      return out;
    }

    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const r = forRoom;
      const errorEl = form.querySelector(".error");
      try {
        const created = await ctx.conn.request({ type: "create_table", room: r.name,
          ...(r.rated ? {} : { rules: rulesFrom(data, r), private: data.has("private"),
            ...(data.has("duplicate") ? { sandbox: { duplicate: true } } : {}) }),
          seating: data.get("seating") });
        const t = created.table;
        if (created.invite?.code) {
          ctx.invites[t.id] = created.invite.code;
          ctx.rememberOpened(t.id);
          showInvite(t.id, created.invite.code);
        }
        try {
          const seated = await ctx.conn.request({ type: "sit", table: t.id });
          ctx.rememberSeat(t.id, seated.seat, seated.seat_token, r.name);
          el.close();
          ctx.navigate(`/table/${t.id}`);
        } catch (err) {
          el.close();
          refuse(err);
        }
      } catch (err) {
        errorEl.textContent = sentence(err.message);
      }
    });

    let ruleCatalogue = null;
    const catalogueLoaded = getJSON("/api/rules").then((data) => { ruleCatalogue = data.rules; })
      .catch((err) => toast(`Could not load the rules: ${err.message}`, "bad"));
    return { el, open: async (r) => {
      await catalogueLoaded;
      render(r);
      el.showModal();
      form.querySelector("input,select")?.focus();
    } };
  }

  const unmounted = { done: false };
  loadRooms().catch((err) => refuse(err));

  return {
    unmount() { unmounted.done = true; chat?.destroy(); },
    onReconnect() { if (room) openRoom(room).catch(refuse); },
    onMessage(msg) {
      if (msg.type === "table_update" && room && msg.table.room === room.name) {
        countTable(msg.table.id, msg.removed);
        if (myGame?.id === msg.table.id) {
          myGame = !msg.removed && msg.table.state === "playing" && mySeatAt(msg.table) ? msg.table : null;
          renderRoom();
        }
        if (msg.removed) tables.delete(msg.table.id); else tables.set(msg.table.id, msg.table);
        renderTables();
      } else if (msg.type === "queue_status" && room && msg.room === room.name) {
        queue = msg;
        renderQueue();
      } else if (msg.type === "error" && msg.id == null) {
        refuse(msg);
      }
    },
  };
}

/** A private table's invite link, to copy and send to friends. */
function showInvite(table, code) {
  const link = inviteLink(table, code);
  const input = h("input", { type: "text", readonly: true, value: link, "aria-label": "Invite link",
    class: "invite-link", onfocus: (e) => e.target.select() });
  const note = h("p", { role: "status", class: "hint" });
  const box = h("dialog", { class: "invite-dialog", "aria-labelledby": "invite-h" },
    h("h2", { id: "invite-h" }, "Invite your friends"),
    h("p", {}, "Send them this link: it seats them at this table (for a day)."),
    input, note,
    h("div", { class: "dialog-actions" },
      h("button", { type: "button", onclick: async () => {
        try { await navigator.clipboard.writeText(link); note.textContent = "Copied."; }
        catch { input.select(); note.textContent = "Select the link and copy it."; }
      } }, "Copy link"),
      h("button", { type: "button", class: "primary", onclick: () => { box.close(); box.remove(); } }, "Done")));
  document.body.append(box);
  box.showModal();
}
