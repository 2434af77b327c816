// The lobby: rooms, a room's tables and seats, creating a table, joining,
// watching, robots, the ranked random queue, and the room's chat.

import { t } from "./i18n.js";
import { gameName, systemName } from "./games.js";

/** A rule's value where the server gives no label for it: "spades_broken" → "spades broken". */
const ruleValue = (v) => String(v).replaceAll("_", " ");
import { inviteLink } from "./join.js";
import { h, fill, toast, seconds, sentence } from "./dom.js";
import { SEAT_NAMES } from "./cards.js";
import { chatPanel } from "./chat.js";
import { getJSON } from "./net.js";
import { count } from "./counts.js";

export { systemName };

export function mount(main, ctx, params) {
  let room = null; // the RoomInfo on screen
  const tables = new Map();
  let cut = null; // { listed, total } when the room has more tables than its list gave
  let queue = null; // the last queue_status for this room
  let chat = null;
  let shownRoom = null; // the room the strip was last scrolled to
  let myGame = null; // a game going on with this player seated (TableInfo), if any

  const alert = h("div", { class: "refusal", role: "alert", hidden: true });
  const roomNav = h("nav", { class: "rooms", "aria-label": t("lobby.rooms") });
  const roomHead = h("div", { class: "room-head" });
  const queueBox = h("div", { class: "queue" });
  const tableList = h("ul", { class: "table-list", "aria-label": t("lobby.tables") });
  const chatBox = h("div", { class: "room-chat" });
  const dialog = createDialog();

  fill(main, h("section", { class: "lobby" },
    h("h1", { class: "sr-only" }, t("nav.lobby")),
    roomNav,
    h("div", { class: "room" }, alert, roomHead, queueBox, tableList),
    chatBox, dialog.el));

  function refuse(err) {
    alert.hidden = false;
    fill(alert, h("strong", {}, err.code === "not_eligible" ? t("lobby.not_eligible_yet") : t("lobby.refused")), " ", err.message, " ",
      h("button", { type: "button", class: "link", onclick: () => { alert.hidden = true; } }, t("lobby.dismiss")));
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
    const byId = new Map(listed.flat().map((tb) => [tb.id, tb]));
    return remembered.map(([id]) => byId.get(id)).filter((tb) => tb && tb.state === "playing" && mySeatAt(tb));
  }

  /** "Your game is on": from any room, the way back to the seat. */
  function myGameNote() {
    if (!myGame) return null;
    const seat = mySeatAt(myGame);
    return h("div", { class: "my-game", role: "status" },
      h("strong", {}, t("lobby.game_on", { room: myGame.room })), " ",
      seat?.away ? t("lobby.game_on_table_away", { id: myGame.id }) : t("lobby.game_on_table", { id: myGame.id }), " ",
      h("button", { type: "button", class: "primary", onclick: () => ctx.navigate(`/table/${myGame.id}`) }, t("lobby.back_to_seat")));
  }

  function renderRooms(current) {
    const scrolled = roomNav.querySelector("ul")?.scrollLeft || 0;
    fill(roomNav, h("h2", {}, t("lobby.rooms")), h("ul", {}, ctx.rooms.map((r) =>
      h("li", {}, h("a", {
        href: `#/room/${encodeURIComponent(r.name)}`, class: "room-link",
        "aria-current": r.name === current?.name ? "page" : null,
        onclick: (e) => { e.preventDefault(); history.replaceState(null, "", `#/room/${encodeURIComponent(r.name)}`); openRoom(r); },
      },
      h("span", { class: "room-name" }, r.name),
      h("span", { class: `badge ${r.rated ? "ranked" : "casual"}` }, r.rated ? t("lobby.ranked_system", { system: systemName(r.system) }) : t("lobby.casual")),
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
    for (const tb of reply.tables) tables.set(tb.id, tb);
    cut = reply.total > reply.tables.length ? { listed: reply.tables.length, total: reply.total } : null;
    renderRoom();
    chat?.destroy();
    chat = chatPanel(ctx, { key: `room:${r.name}`, title: t("lobby.room_chat_of", { room: r.name }),
      send: (text) => ctx.conn.request({ type: "chat", room: r.name, text }) });
    fill(chatBox, h("h2", {}, t("lobby.room_chat")), chat.el);
  }

  function renderRoom() {
    if (!room) return;
    const rules = Object.entries(room.rules || {}).filter(([k]) => ["target", "mercy", "blind_nil", "moon"].includes(k))
      .map(([k, v]) => t("lobby.rule", { rule: k, value: v === null || v === false ? t("rules.off") : v === true ? t("rules.on") : ruleValue(v) })).join(" · ");
    fill(roomHead,
      myGameNote(),
      h("h2", {}, room.name, " ", h("span", { class: `badge ${room.rated ? "ranked" : "casual"}` },
        room.rated ? t("lobby.ranked_system", { system: systemName(room.system) }) : t("lobby.casual"))),
      h("p", { class: "hint" }, `${gameName(room.game)}${rules ? ` · ${rules}` : ""}`),
      notEligible(),
      h("div", { class: "room-actions" },
        h("button", { type: "button", class: "primary", "data-action": "create-table", onclick: () => dialog.open(room),
          disabled: barred() ? true : null, "aria-describedby": barred() ? "not-eligible" : null }, t("lobby.create_table"))));
    renderQueue();
    renderTables();
  }

  /** Why this player may not sit in the ranked room on screen (the server's words), or null. */
  const barred = () => (room?.rated && room.not_eligible) || null;

  function notEligible() {
    if (!barred()) return null;
    return h("p", { class: "eligibility", id: "not-eligible" },
      h("strong", {}, t("lobby.not_eligible")), " ", sentence(barred()),
      ctx.me && !ctx.me.guest ? [" ", h("a", { href: `#/player/${encodeURIComponent(ctx.me.name)}` }, t("lobby.your_casual_games"))] : null);
  }

  function renderQueue() {
    if (!room?.rated) { fill(queueBox); queueBox.hidden = true; return; }
    queueBox.hidden = false;
    const inQueue = queue?.queued;
    fill(queueBox,
      h("h3", {}, t("queue.title")),
      h("p", { class: "queue-status", "aria-live": "polite" }, queue
        ? [t("queue.waiting", { players: count(queue.length, "player") }),
          queue.expected_wait != null ? t("queue.expected", { wait: queue.expected_wait < 5 ? t("queue.few_seconds")
            : t("queue.about", { time: seconds(queue.expected_wait) }) }) : null,
          inQueue ? t("queue.in") : null].filter(Boolean).join(" · ")
        : t("queue.join_hint")),
      h("button", { type: "button", class: inQueue ? "" : "primary",
        disabled: !inQueue && barred() ? true : null, "aria-describedby": barred() ? "not-eligible" : null,
        onclick: () => ctx.conn.request({ type: inQueue ? "unqueue" : "queue", room: room.name })
          .then((reply) => { if (reply.type === "queue_status") { queue = reply; renderQueue(); } })
          .catch(refuse) },
      inQueue ? t("queue.leave") : t("queue.join")));
  }

  function mySeatAt(tb) {
    return tb.seats.find((s) => s.kind === "human" && s.name === ctx.me?.name);
  }

  async function sit(tb, seat) {
    try {
      const reply = await ctx.conn.request({ type: "sit", table: tb.id, ...(seat == null ? {} : { seat }) });
      ctx.rememberSeat(tb.id, reply.seat, reply.seat_token, tb.room);
      ctx.navigate(`/table/${tb.id}`);
    } catch (err) { refuse(err); }
  }

  function renderTables() {
    const list = [...tables.values()];
    if (!list.length) {
      fill(tableList, h("li", { class: "empty-note" }, t("lobby.no_tables")));
      return;
    }
    const order = { waiting: 0, playing: 1, over: 2 };
    list.sort((a, b) => order[a.state] - order[b.state]);
    fill(tableList, list.map((tb) => {
      const mine = mySeatAt(tb);
      const empty = tb.seats.some((s) => s.kind === "empty");
      const waiting = tb.state === "waiting";
      return h("li", { class: `table-card ${tb.state}`, "data-table": tb.id },
        h("div", { class: "tc-head" },
          h("strong", {}, t("table.label", { id: tb.id })),
          h("span", { class: `state ${tb.state}` }, t("lobby.state", { state: tb.state })),
          waiting ? h("span", { class: "hint" }, t("lobby.seating", { seating: tb.seating })) : null,
          tb.watchers ? h("span", { class: "hint" }, count(tb.watchers, "watcher")) : null),
        h("ul", { class: "tc-seats" }, tb.seats.map((s) => h("li", { class: `seat-line ${s.kind}` },
          h("span", { class: "seat-dir" }, SEAT_NAMES[s.seat]),
          s.kind === "empty"
            ? (waiting && !mine && tb.seating !== "random_seating" && !barred()
              ? h("button", { type: "button", class: "small", onclick: () => sit(tb, s.seat) }, t("seat.sit_here"))
              : h("span", { class: "hint" }, t("seat.empty")))
            : h("span", { class: "seat-who" }, s.name,
              s.bot ? h("span", { class: "badge bot", title: t("badge.bot_title") }, t("badge.bot")) : null,
              s.kind === "robot" ? h("span", { class: "badge robot" }, t("badge.robot")) : null,
              s.away ? h("span", { class: "badge away" }, t("badge.away")) : null)))),
        h("div", { class: "tc-actions" },
          mine ? h("button", { type: "button", class: "primary", onclick: () => ctx.navigate(`/table/${tb.id}`) }, t("lobby.back_to_seat"))
            : waiting && empty && !barred() ? h("button", { type: "button", class: "primary", onclick: () => sit(tb, null) }, t("lobby.join")) : null,
          h("button", { type: "button", onclick: () => ctx.navigate(`/table/${tb.id}`) }, t("lobby.watch")),
          !room.rated && waiting && empty ? h("button", { type: "button",
            onclick: () => ctx.conn.request({ type: "fill_robots", table: tb.id }).catch(refuse) }, t("table.fill_robots")) : null));
    }), cut ? h("li", { class: "empty-note list-cut" },
      t("lobby.list_cut", { tables: count(cut.total, "table"), listed: cut.listed })) : null);
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
      if (v === null || v === false) return t("rules.off");
      if (v === true) return t("rules.on");
      const choice = rule.choices?.find((c) => JSON.stringify(c.value) === JSON.stringify(v));
      return choice ? choice.label : ruleValue(v);
    };

    function rulesFields(r) {
      const rules = r.rules || {};
      const catalogue = ruleCatalogue?.[r.game];
      if (!catalogue) return [h("p", { class: "hint" }, t("create.loading_rules"))];
      const value = (rule) => (rule.name in rules ? rules[rule.name] : rule.default);
      if (r.rated) {
        // A ranked room plays its host's rules: shown, not chosen (the server refuses others).
        return [h("p", { class: "hint host-rules" }, t("create.host_rules", {
          rules: catalogue.filter((rule) => rule.common).map((rule) => t("create.rule_value", { rule: rule.label, value: valueText(rule, value(rule)) })).join(" · ") }))];
      }
      return [
        ...catalogue.filter((rule) => rule.common).map((rule) => ruleField(rule, value(rule))),
        h("details", { class: "more-rules" }, h("summary", {}, t("create.more_rules")),
          catalogue.filter((rule) => !rule.common).map((rule) => ruleField(rule, value(rule)))),
      ];
    }

    function render(r) {
      forRoom = r;
      const sameGame = ctx.rooms;
      fill(form,
        h("h2", { id: "create-h" }, t("create.title")),
        h("label", { class: "field" }, h("span", {}, t("create.game_room")),
          h("select", { name: "room", onchange: (e) => render(ctx.rooms.find((x) => x.name === e.target.value)) },
            sameGame.map((x) => h("option", { value: x.name, selected: x.name === r.name ? true : null },
              t("create.room_option", { game: gameName(x.game), room: x.name,
                kind: x.rated ? t("create.ranked_system", { system: systemName(x.system) }) : t("create.casual") }))))),
        h("fieldset", {}, h("legend", {}, t("create.rules")), rulesFields(r)),
        h("fieldset", {}, h("legend", {}, t("create.seating")),
          h("label", { class: "check" }, h("input", { type: "radio", name: "seating", value: "fixed_seating", checked: true }),
            t("create.fixed_seating")),
          h("label", { class: "check" }, h("input", { type: "radio", name: "seating", value: "random_seating" }),
            t("create.random_seating"))),
        r.rated ? null : h("label", { class: "check" }, h("input", { type: "checkbox", name: "private" }),
          t("create.private")),
        // A sandbox (issue 36): the bench's duplicate method, for everyone (a private table).
        r.rated ? null : h("label", { class: "check" }, h("input", { type: "checkbox", name: "duplicate" }),
          t("create.duplicate")),
        h("p", { class: "error", role: "alert" }),
        h("div", { class: "dialog-actions" },
          h("button", { type: "button", onclick: () => el.close() }, t("dialog.cancel")),
          h("button", { type: "submit", class: "primary", value: "create" }, t("create.go"))));
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
        const tb = created.table;
        if (created.invite?.code) {
          ctx.invites[tb.id] = created.invite.code;
          ctx.rememberOpened(tb.id);
          showInvite(tb.id, created.invite.code);
        }
        try {
          const seated = await ctx.conn.request({ type: "sit", table: tb.id });
          ctx.rememberSeat(tb.id, seated.seat, seated.seat_token, r.name);
          el.close();
          ctx.navigate(`/table/${tb.id}`);
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
      .catch((err) => toast(t("create.rules_failed", { why: err.message }), "bad"));
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
  const input = h("input", { type: "text", readonly: true, value: link, "aria-label": t("invite.link"),
    class: "invite-link", onfocus: (e) => e.target.select() });
  const note = h("p", { role: "status", class: "hint" });
  const box = h("dialog", { class: "invite-dialog", "aria-labelledby": "invite-h" },
    h("h2", { id: "invite-h" }, t("invite.title")),
    h("p", {}, t("invite.send_hint")),
    input, note,
    h("div", { class: "dialog-actions" },
      h("button", { type: "button", onclick: async () => {
        try { await navigator.clipboard.writeText(link); note.textContent = t("invite.copied_short"); }
        catch { input.select(); note.textContent = t("invite.copy_by_hand"); }
      } }, t("invite.copy")),
      h("button", { type: "button", class: "primary", onclick: () => { box.close(); box.remove(); } }, t("dialog.done"))));
  document.body.append(box);
  box.showModal();
}
