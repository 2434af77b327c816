// Profiles (ratings per game and system, stats, the rating history chart drawn
// here as SVG) and leaderboards per game and system.

import { t, num, date, list, signed as signedNum } from "./i18n.js";
import { h, s, fill, sentence } from "./dom.js";
import { getJSON } from "./net.js";
import { gameName, systemName } from "./games.js";
import { count } from "./counts.js";
import { heartsPlaces } from "./scoresheet.js";

const GAMES = ["spades", "hearts"];
const LADDERS = ["people", "bots"];
const round = (x) => (x == null || Number.isNaN(Number(x)) ? "—" : num(Math.round(Number(x))));
const when = (seconds) => date(seconds * 1000, { dateStyle: "medium", timeStyle: "short" });
const listOf = (x) => (Array.isArray(x) ? x : x && typeof x === "object"
  ? Object.entries(x).flatMap(([k, v]) => (Array.isArray(v) ? v : [{ key: k, ...v }])) : []);

/** Split "spades/zone" style keys when entries come as an object keyed by game and system. */
/** Beside the number players read, the system's own when it differs (Weng-Lin's μ ± σ). */
function shownNote(r) {
  if (r.shown == null || Math.round(r.shown) === Math.round(r.rating)) {
    return r.sigma ? h("span", { class: "hint" }, ` ± ${round(r.sigma)}`) : null;
  }
  const mu = Math.round(Number(r.rating) * 10) / 10;
  const sigma = Math.round(Number(r.sigma) * 10) / 10;
  return h("span", { class: "hint" }, ` (μ ${num(mu)} ± ${num(sigma)})`);
}

function normaliseRating(r) {
  if ((!r.game || !r.system) && r.key) {
    const [game, system] = r.key.split(/[/:|]/);
    return { game, system, ...r };
  }
  return r;
}

export function mount(main, ctx, params) {
  return params.page === "leaders" ? leaders(main, ctx, params) : player(main, ctx, params);
}

// -- the chart ---------------------------------------------------------------------------------

/** An SVG line chart of one rating series: points are {time, rating, game_id}. */
export function ratingChart(points, { width = 640, height = 240, label = t("profile.history") } = {}) {
  const pad = { l: 44, r: 12, t: 12, b: 28 };
  const w = width - pad.l - pad.r;
  const hgt = height - pad.t - pad.b;
  const values = points.map((p) => Number(p.rating));
  let lo = Math.min(...values), hi = Math.max(...values);
  if (hi - lo < 20) { lo -= 10; hi += 10; }
  const span = hi - lo;
  lo -= span * 0.08; hi += span * 0.08;
  const x = (i) => pad.l + (points.length === 1 ? w / 2 : (i / (points.length - 1)) * w);
  const y = (v) => pad.t + hgt - ((v - lo) / (hi - lo)) * hgt;
  const step = niceStep((hi - lo) / 4);
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) ticks.push(v);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(values[i]).toFixed(1)}`).join(" ");
  const last = points.at(-1);
  const games = points.filter((p) => !p.start).length;
  // A group, not an image: the dots are links to the games' reviews (an image may hold no links).
  return s("svg", { class: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "group",
    "aria-label": t("chart.label", { label, games: count(games, "game"), from: round(values[0]), to: round(last.rating) }),
    preserveAspectRatio: "xMidYMid meet" },
  s("title", {}, label),
  ticks.map((v) => s("g", { class: "tick", "aria-hidden": "true" },
    s("line", { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v) }),
    s("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end" }, round(v)))),
  s("text", { class: "axis-label", x: pad.l, y: height - 8, "aria-hidden": "true" }, points[0].start ? t("chart.start") : t("chart.game", { n: 1 })),
  s("text", { class: "axis-label", x: width - pad.r, y: height - 8, "text-anchor": "end", "aria-hidden": "true" }, t("chart.game", { n: games })),
  s("path", { class: "line", d: path }),
  points.map((p, i) => {
    const text = [p.start ? t("chart.start_rating", { rating: round(p.rating) }) : round(p.rating), p.time ? when(p.time) : null]
      .filter(Boolean).join(" · ");
    const dot = s("circle", { class: "dot", cx: x(i), cy: y(values[i]), r: points.length > 60 ? 2 : 3.5 },
      s("title", {}, text));
    return p.game_id ? s("a", { href: `#/review/${encodeURIComponent(p.game_id)}`,
      "aria-label": t("chart.dot", { n: points[0].start ? i : i + 1, text }) }, dot) : dot;
  }));
}

function niceStep(raw) {
  const mag = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  for (const m of [1, 2, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

// -- a player's page -----------------------------------------------------------------------------

/** The casual games that count toward ranked play, against how many the server asks for,
 *  and the rule that counts them (a game against robots alone counts nothing). */
function casualCount(data) {
  const done = data.casual_games ?? 0;
  const needed = data.casual_games_needed;
  const rankMe = t(data.rank_me === false ? "profile.rank_me_off" : "profile.rank_me_on");
  if (needed == null || done >= needed) {
    return h("p", { class: "hint casual-count" }, t("profile.casual_done", { games: count(done, "casual game") }), " · ", rankMe);
  }
  return h("p", { class: "hint casual-count" },
    t("profile.casual_of", { n: done, games: count(needed, "casual game") }), " · ", rankMe, ". ",
    t("profile.casual_rule"));
}

/** The player's last games, casual and ranked, newest first, each with its review. */
/** Accuracy over the player's recent analysed games (the robots' analysis), per game. */
function accuracy(data) {
  const rows = data.accuracy || [];
  if (!rows.length) return null;
  return h("section", { class: "accuracy", "aria-labelledby": "accuracy-h" },
    h("h2", { id: "accuracy-h" }, t("profile.accuracy")),
    h("p", { class: "hint" }, t("profile.accuracy_about")),
    h("dl", { class: "stats" }, rows.map((r) => h("div", { class: "stat" },
      h("dt", {}, gameName(r.game)),
      h("dd", {}, t("profile.accuracy_of", { accuracy: num(Number(r.accuracy), { maximumFractionDigits: 1 }), n: r.games }))))));
}

function recentGames(data) {
  const games = data.recent_games || [];
  const signed = (x) => (x > 0 ? `+${round(x)}` : x < 0 ? `−${round(-x)}` : "±0"); // ±0: a game rated, no change
  return h("section", { class: "recent", "aria-labelledby": "recent-h" },
    h("h2", { id: "recent-h" }, t("profile.recent")),
    games.length ? h("ol", { class: "recent-games" }, games.map((g) => {
      // Hearts: the place, as the game's results say it (a gain in 2nd place is no loss).
      const outcome = g.abandoned ? t("result.ended_early") : g.game === "hearts" && g.scores?.length === 4
        ? heartsPlaces(g.scores)[g.seat] : g.won ? t("result.won") : t("result.lost");
      const others = g.players.filter((_, seat) => seat !== g.seat);
      return h("li", {},
        h("a", { href: `#/review/${encodeURIComponent(g.game_id)}` }, t("profile.game_review", { game: gameName(g.game) })),
        " ", h("span", { class: `outcome ${g.won ? "won" : ""}` }, outcome),
        " · ", t(g.rated ? "profile.ranked_in" : "profile.casual_in", { room: g.room }),
        g.rating_delta != null ? [" · ", t("profile.rating_delta", { delta: signed(g.rating_delta) })] : "",
        !g.rated && g.registered_players != null && g.registered_players < 2
          ? h("span", { class: "hint" }, " · ", t("profile.did_not_count")) : null,
        h("span", { class: "hint" }, " · ", t("profile.with", { names: list(others) }),
          g.ended_at ? ` · ${when(g.ended_at)}` : ""));
    })) : h("p", { class: "hint" }, t("profile.no_games")));
}

function player(main, ctx, params) {
  const root = h("section", { class: "profile" }, h("h1", {}, params.name), h("p", {}, t("felt.loading")));
  fill(main, root);
  const load = () => getJSON(`/api/players/${encodeURIComponent(params.name)}`).then((data) => {
    if (!data) {
      fill(root, h("h1", {}, params.name), h("p", {}, t("profile.none")));
      return;
    }
    const ratings = listOf(data.ratings).map(normaliseRating);
    const key = (r) => `${r.game}/${r.system}`;
    const chartBox = h("div", { class: "chart-box" });
    const withHistory = ratings.filter((r) => (r.history || []).length);
    const pick = h("select", { "aria-label": t("profile.history_of"), onchange: () => drawChart(pick.value) },
      withHistory.map((r) => h("option", { value: key(r) }, `${gameName(r.game)} · ${systemName(r.system)}`)));
    function drawChart(wanted) {
      const r = withHistory.find((x) => key(x) === wanted);
      // The number players read (Weng-Lin's shown value, not its raw μ) where a point has it.
      const games = (r?.history || []).map((p) => ({ ...p, rating: p.shown ?? p.value ?? p.rating }));
      // The line starts where the player started: the first game's rating before its change
      // (a raw change, so only where the shown number is the raw one).
      const first = games[0];
      const points = first && first.delta != null && (first.shown == null || Math.abs(first.shown - first.value) < 0.1)
        ? [{ rating: first.rating - first.delta, start: true }, ...games] : games;
      fill(chartBox, points.length
        ? ratingChart(points, { label: t("profile.chart_label", { game: gameName(r.game), system: systemName(r.system) }) })
        : h("p", { class: "hint" }, t("profile.no_chart")));
    }
    const stat = (label, value) => h("div", { class: "stat" }, h("dt", {}, label), h("dd", {}, value ?? "—"));
    const mine = ctx.me && !ctx.me.guest && ctx.me.name.toLowerCase() === (data.name || "").toLowerCase();
    fill(root,
      h("h1", {}, data.name || params.name,
        data.bot ? h("span", { class: "badge bot", title: t("profile.bot_title") }, t("badge.bot")) : null),
      data.bot ? h("p", { class: "hint" }, t("profile.bot")) : casualCount(data),
      data.banned_until ? h("p", { class: "refusal" }, t("profile.banned", {
        until: typeof data.banned_until === "number" ? when(data.banned_until) : data.banned_until })) : null,
      mine ? rankMe(ctx, data, load) : null,
      h("section", { class: "rating-cards", "aria-label": t("profile.ratings") }, ratings.length ? ratings.map((r) => {
        const st = r.stats || r;
        return h("article", { class: "rating-card" },
          h("h2", {}, `${gameName(r.game)} · ${systemName(r.system)}`),
          h("p", { class: "big-rating" }, round(r.shown ?? r.rating), shownNote(r)),
          h("dl", { class: "stats" },
            stat(t("stat.games"), st.games), stat(t("stat.wins"), st.wins), stat(t("stat.losses"), st.losses), stat(t("stat.ties"), st.ties),
            stat(t("stat.incomplete"), st.incomplete), stat(t("stat.quits"), st.quits),
            r.game === "spades" ? stat(t("stat.skill_ratio"), r.skill_ratio == null ? "—" : num(Number(r.skill_ratio), { minimumFractionDigits: 2, maximumFractionDigits: 2 })) : null,
            r.game === "spades" ? stat(t("stat.nils_made"), st.nil_bid ? `${st.nil_made}/${st.nil_bid}` : "—") : null));
      }) : h("p", { class: "hint" }, t("profile.no_rated"))),
      accuracy(data),
      recentGames(data),
      h("section", { class: "history", "aria-label": t("profile.history") },
        h("h2", {}, t("profile.history")), withHistory.length > 1 ? pick : null, chartBox,
        withHistory.length ? h("details", {}, h("summary", {}, t("profile.rated_games")),
          h("ol", { class: "games-list" }, withHistory.flatMap((r) => r.history.map((p) => ({ ...p, r })))
            .sort((a, b) => (b.time ?? 0) - (a.time ?? 0)).slice(0, 50).map((p) => h("li", {},
              h("a", { href: `#/review/${encodeURIComponent(p.game_id)}` }, t("profile.game_of", { game: gameName(p.r.game) })),
              ` · ${systemName(p.r.system)} · ${round(p.shown ?? p.value)}`,
              p.delta != null ? ` (${signedNum(Math.round(p.delta * 10) / 10)})` : "",
              p.time ? h("span", { class: "hint" }, ` · ${when(p.time)}`) : null))))
          : null));
    drawChart(withHistory[0] ? key(withHistory[0]) : "");
  }).catch((err) => fill(root, h("h1", {}, params.name), h("p", { class: "error" }, sentence(err.message))));
  load();
  return {};
}

/** "Rank me": turning it off bans ranked play for a week and resets ratings, so it asks first. */
function rankMe(ctx, data, reload) {
  const on = data.rank_me !== false;
  const error = h("span", { class: "error", role: "alert" });
  return h("div", { class: "rank-me panel" },
    h("label", { class: "check" }, h("input", { type: "checkbox", checked: on ? true : null,
      onchange: async (e) => {
        const want = e.target.checked;
        if (!want && !confirm(t("profile.rank_me_confirm"))) {
          e.target.checked = true;
          return;
        }
        try {
          await ctx.conn.request({ type: "settings", rank_me: want, confirm: !want });
          reload();
        } catch (err) { error.textContent = sentence(err.message); e.target.checked = !want; }
      } }), t("profile.rank_me")), error);
}

// -- leaderboards --------------------------------------------------------------------------------

function leaders(main, ctx, params) {
  const systems = new Set(["zone", "wocg", "points_en", "points_el", "zone_tuned", "wocg_tuned", "openskill", "openskill_tuned"]);
  for (const r of ctx.rooms || []) if (r.system) systems.add(r.system);
  const game = params.game || "spades";
  const system = params.system || [...(ctx.rooms || [])].find((r) => r.rated && r.game === game)?.system || "zone";
  systems.add(system);
  // People's boards, or the bot ladder's (BOT accounts are rated apart from people).
  const ladder = params.ladder === "bots" ? "bots" : "people";
  const board = h("div", { class: "board" }, h("p", {}, t("felt.loading")));
  const change = () => {
    const form = new FormData(controls);
    location.hash = `/leaders?game=${form.get("game")}&system=${form.get("system")}&ladder=${form.get("ladder")}`;
  };
  const controls = h("form", { class: "board-controls", onchange: change, onsubmit: (e) => e.preventDefault() },
    h("label", { class: "field" }, h("span", {}, t("profile.game")), h("select", { name: "game" },
      GAMES.map((g) => h("option", { value: g, selected: g === game ? true : null }, gameName(g))))),
    h("label", { class: "field" }, h("span", {}, t("leaders.system")), h("select", { name: "system" },
      [...systems].map((x) => h("option", { value: x, selected: x === system ? true : null }, systemName(x))))),
    h("label", { class: "field" }, h("span", {}, t("leaders.players")), h("select", { name: "ladder" },
      LADDERS.map((v) => h("option", { value: v, selected: v === ladder ? true : null }, t(`leaders.${v}`))))));
  fill(main, h("section", { class: "leaders" }, h("h1", {}, t("nav.leaders")), controls, board));
  getJSON(`/api/leaderboard?game=${encodeURIComponent(game)}&system=${encodeURIComponent(system)}&ladder=${ladder}`).then((data) => {
    const rows = data ? listOf(data.players || data.leaderboard || data.leaders || data.rows || data) : [];
    if (!rows.length) { fill(board, h("p", { class: "hint" }, t("leaders.none"))); return; }
    fill(board, h("table", { class: "leaderboard" },
      h("caption", {}, [gameName(game), systemName(system), ladder === "bots" ? t("leaders.bot_ladder") : null].filter(Boolean).join(" · ")),
      h("thead", {}, h("tr", {}, ["#", t("leaders.player"), t("leaders.rating"), t("leaders.games"), t("leaders.won"), game === "spades" ? t("leaders.skill_ratio") : null]
        .filter(Boolean).map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, rows.map((r, i) => h("tr", {},
        h("td", { class: "num" }, num(r.rank ?? i + 1)),
        h("td", {}, h("a", { href: `#/player/${encodeURIComponent(r.player ?? r.name)}` }, r.player ?? r.name)),
        h("td", { class: "num" }, round(r.shown ?? r.rating), shownNote(r)),
        h("td", { class: "num" }, r.games == null ? "—" : num(r.games)),
        h("td", { class: "num" }, r.win_rate == null ? (r.wins == null ? "—" : num(r.wins)) : num(Math.round(r.win_rate * 100) / 100, { style: "percent" })),
        game === "spades" ? h("td", { class: "num" }, r.skill_ratio == null ? "—" : num(Number(r.skill_ratio), { minimumFractionDigits: 2, maximumFractionDigits: 2 })) : null)))));
  }).catch((err) => fill(board, h("p", { class: "error" }, sentence(err.message))));
  return {};
}
