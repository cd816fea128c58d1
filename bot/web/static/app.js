// Mahjong Ledger's page: standings, history, a hand by features or by tiles, settling up.
// Every word comes from the server (the chat's catalogues), every number from its API; taps
// change only the local state and redraw at once, the API is asked when a hand is whole.
"use strict";

const INIT_HEADER = document.querySelector('meta[name="init-data-header"]').content;
const TG_SCRIPT = "https://telegram.org/js/telegram-web-app.js";
const S = {
  lang: localStorage.getItem("lang") || "", strings: {}, state: null, form: null,
  screen: "table", hand: null, preview: null, reading: null, settle: null, error: "",
};

const webApp = () => (window.Telegram && window.Telegram.WebApp) || null;

function T(msgid, params) {
  let text = S.strings[msgid] || msgid;
  for (const key in params || {}) text = text.split("{" + key + "}").join(String(params[key]));
  return text;
}

// h("button.on", {onclick}, "text", child…): a small element builder
function h(tag, attrs, ...kids) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "html") el.innerHTML = v;  // the chat's own HTML, escaped by the server
    else if (v !== false && v != null) el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat(Infinity)) if (kid != null && kid !== false) el.append(kid);
  return el;
}

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  const app = webApp();
  if (app && app.initData) headers[INIT_HEADER] = app.initData;
  const query = S.lang ? "?lang=" + encodeURIComponent(S.lang) : "";
  let resp;
  try {
    resp = await fetch("api/" + path + query, { method: "POST", headers, body: JSON.stringify(body || {}) });
  } catch (err) {
    return { status: 0, data: { error: T("This table cannot be reached: {error}", { error: err.message }) } };
  }
  let data;
  try { data = await resp.json(); } catch (_) { data = { error: String(resp.status) }; }
  return { status: resp.status, data };
}

function note(text) {
  const box = document.getElementById("note");
  box.textContent = text;
  box.hidden = !text;
  clearTimeout(note.timer);
  if (text) note.timer = setTimeout(() => { box.hidden = true; }, 4000);
}

// -- loading ------------------------------------------------------------------------------------

async function refresh() {
  const { status, data } = await api("state");
  if (status !== 200) {
    S.error = data.error || String(status);
    if (!S.lang) S.lang = browserLang();
    draw();
    return;
  }
  S.error = "";
  S.state = data;
  S.lang = data.lang;
  S.strings = data.strings;
  document.documentElement.lang = data.lang;
  S.form = null;
  if (data.session) {
    const form = await api("form");
    if (form.status === 200) S.form = form.data;
  }
  if (!data.session && S.screen !== "table") S.screen = "table";
  if (S.hand && (!data.session || S.hand.session !== data.session.id)) S.hand = null;
  draw();
}

// before the server has said which language (a refused page): the browser's, as the server reads it
function browserLang() {
  const code = (navigator.language || "en").toLowerCase();
  if (!code.startsWith("zh")) return "en";
  return /hant|tw|hk|mo/.test(code) ? "zh-Hant" : "zh-Hans";
}

function drawLangs() {
  const select = document.getElementById("lang");  // its options come with the page
  if (S.lang) select.value = S.lang;
  select.setAttribute("aria-label", T("Language"));
}

function draw() {
  document.getElementById("title").textContent = T("Mahjong Ledger");
  document.title = T("Mahjong Ledger");
  drawLangs();
  const session = S.state && S.state.session;
  const tabs = S.error ? [] : [["table", session ? "Standings" : "New session"]];
  if (session) tabs.push(["history", "History"]);
  if (session && S.state.may_book && session.seated && S.form) tabs.push(["hand", "Book a hand"]);
  if (session) tabs.push(["settle", "Settle"]);
  document.getElementById("tabs").replaceChildren(...tabs.map(([key, msgid]) =>
    h("button" + (S.screen === key ? ".on" : ""), { "data-screen": key, onclick: () => go(key) }, T(msgid))));
  const main = document.getElementById("main");
  if (S.error) { main.replaceChildren(h("p.error", {}, S.error)); return; }
  if (!S.state) return;
  const screens = { table: tableScreen, history: historyScreen, hand: handScreen, settle: settleScreen };
  main.replaceChildren(...[].concat((screens[S.screen] || tableScreen)()).flat(Infinity).filter((x) => x != null && x !== false));
}

function go(screen) {
  S.screen = screen;
  S.preview = null;
  if (screen === "settle") loadSettle();
  draw();
  window.scrollTo(0, 0);
}

// -- standings and history ------------------------------------------------------------------------

function money(cents) {
  const sign = cents < 0 ? "−" : "";
  return sign + (Math.abs(cents) / 100).toFixed(2);
}

function tableScreen() {
  const session = S.state.session;
  if (!session) return S.state.local ? newSession() : [h("p.hint", {}, T("No session is running."))];
  const players = session.names.map((name, seat) => {
    const pts = session.totals[seat];
    return h("div.player", { "data-seat": seat }, h("b", {}, name || "—"),
      h("span.pts" + (pts < 0 ? ".neg" : pts > 0 ? ".pos" : ""), {}, (pts > 0 ? "+" : pts < 0 ? "−" : "") + Math.abs(pts)),
      session.stake_cents ? h("div.hint", {}, T("Money") + " " + money(pts * session.stake_cents)) : null);
  });
  const out = [h("h2", {}, session.title), h("div.players", {}, players),
    h("div.card.chat", { id: "table-html", html: session.table_html })];
  if (S.state.local) {
    out.push(h("div.row", {}, h("button", { id: "end", onclick: endSession }, T("End the session"))));
  }
  return out;
}

function historyScreen() {
  const blocks = S.state.session.history_html;
  if (!blocks.length) return [h("p.hint", {}, T("No hands yet."))];
  return blocks.map((html) => h("div.card.chat", { html }));
}

function newSession() {
  const variant = h("select", { id: "variant" },
    S.state.variants.map((v) => h("option", { value: v.name }, v.title)));
  const names = [0, 1, 2, 3].map((i) => h("input", { name: "name" + i, maxlength: 64, autocomplete: "off",
    placeholder: S.state.winds[i], "aria-label": S.state.winds[i] }));
  const stake = h("input", { id: "stake", inputmode: "decimal", placeholder: "0.5" });
  const start = async () => {
    const { status, data } = await api("session", {
      variant: variant.value, names: names.map((n) => n.value.trim()), stake: stake.value.trim() });
    if (status !== 200) { note(data.error); return; }
    S.screen = "table";
    await refresh();
  };
  return [h("p.hint", {}, T("No session is running.")),
    h("div.card", {}, variant, h("h3", {}, T("Players, East to North")), h("div.names", {}, names),
      h("h3", {}, T("Stake per point (optional)")), stake,
      h("div.row", {}, h("button.primary", { id: "start", onclick: start }, T("Start the session"))))];
}

async function endSession() {
  if (!window.confirm(T("End this session? Its hands stay in the books."))) return;
  const { status, data } = await api("end");
  if (status !== 200) note(data.error);
  await refresh();
}

// -- a hand -------------------------------------------------------------------------------------

function newHand() {
  return { session: S.state.session.id, by: "self_draw", from: null, winners: [], mode: "features",
    event: {}, feats: {}, tiles: {}, active: null, target: "hand", indicator: null,
    done: [], exhausted: false };
}

function seatName(seat) {
  return S.state.session.names[seat] || String(seat);
}

function fieldShown(field, hand) {
  return !field.win_by.length || field.win_by.includes(hand.by);
}

function handScreen() {
  if (!S.hand) S.hand = newHand();
  if (S.preview) return previewScreen();
  const hand = S.hand;
  const form = S.form;
  const out = [];
  out.push(h("h3", {}, T("How it was won")),
    h("div.row.grow", {}, form.by.map((b) => h("button" + (hand.by === b.value ? ".on" : ""),
      { "data-by": b.value, onclick: () => tap(() => setBy(b.value)) }, b.label))));
  const won = hand.done.flatMap((e) => e.winners.map((w) => w.seat));
  if (won.length) out.push(h("p.hint", { id: "won" }, T("Won so far: {names}", { names: won.map(seatName).join(", ") })));
  out.push(h("h3", {}, T("Winner")), seatRow("winner", (s) => hand.winners.includes(s), (s) => toggleWinner(s),
    (s) => won.includes(s)));
  if (hand.by !== "self_draw") {
    out.push(h("h3", {}, T("From whom")), seatRow("from", (s) => hand.from === s, (s) => { hand.from = s; },
      (s) => hand.winners.includes(s)));
  }
  const flags = form.event.filter((f) => fieldShown(f, hand));
  if (flags.length) out.push(h("div.row", {}, flags.map((f) => fieldControl(f, hand.event, hand.by))));
  if (!hand.winners.length) {
    if (hand.done.length) out.push(h("div.actions", {}, h("button.primary", { id: "preview", onclick: showPreview }, T("Preview"))));
    return out;
  }
  out.push(h("div.row.grow", {},
    h("button" + (hand.mode === "features" ? ".on" : ""), { id: "mode-features", onclick: () => tap(() => { hand.mode = "features"; }) }, T("By features")),
    h("button" + (hand.mode === "tiles" ? ".on" : ""), { id: "mode-tiles", onclick: () => tap(() => { hand.mode = "tiles"; }) }, T("By tiles"))));
  if (hand.winners.length > 1) {
    out.push(h("div.row.grow", {}, hand.winners.map((s) => h("button" + (hand.active === s ? ".on" : ""),
      { onclick: () => tap(() => { hand.active = s; }) }, seatName(s)))));
  }
  out.push(h("div", { id: "editor" }, hand.mode === "features" ? featuresEditor() : tilesEditor()));
  if (S.form.blood_battle) {
    out.push(h("div.row.grow", {},
      h("button", { id: "another", onclick: () => tap(anotherWin) }, T("Another win in this hand")),
      h("button" + (hand.exhausted ? ".on" : ""), { id: "exhausted",
        onclick: () => tap(() => { hand.exhausted = !hand.exhausted; }) }, S.form.exhausted)));
  }
  out.push(h("div.actions", {}, h("button.primary", { id: "preview", onclick: showPreview }, T("Preview"))));
  return out;
}

function seatRow(name, isOn, set, hidden) {
  return h("div.row.grow", { "data-row": name }, [0, 1, 2, 3].filter((s) => !(hidden && hidden(s)))
    .map((s) => h("button" + (isOn(s) ? ".on" : ""), { "data-seat": s, onclick: () => tap(() => set(s)) }, seatName(s))));
}

function setBy(by) {
  const hand = S.hand;
  hand.by = by;
  if (by === "self_draw") hand.from = null;
  if ((by === "self_draw" || !S.form.multi_winner) && hand.winners.length > 1) hand.winners = hand.winners.slice(0, 1);
  if (hand.from != null && hand.winners.includes(hand.from)) hand.from = null;
  hand.active = hand.winners.includes(hand.active) ? hand.active : (hand.winners[0] ?? null);
}

function toggleWinner(seat) {
  const hand = S.hand;
  const many = S.form.multi_winner && hand.by !== "self_draw";
  if (hand.winners.includes(seat)) hand.winners = hand.winners.filter((s) => s !== seat);
  else hand.winners = many ? [...hand.winners, seat].sort() : [seat];
  if (hand.from === seat) hand.from = null;
  for (const s of hand.winners) {
    hand.feats[s] = hand.feats[s] || {};
    hand.tiles[s] = hand.tiles[s] || { hand: [], melds: [], win: null };
  }
  hand.active = hand.winners.includes(hand.active) ? hand.active : (hand.winners[0] ?? null);
  S.reading = null;
}

// one control per field, from the wizard's own form (toggle, choice, counter, seat)
function fieldControl(field, values, by) {
  const label = (field.label_by && field.label_by[by]) || field.label;
  const value = values[field.name] ?? field.default;
  if (field.kind === "bool") {
    return h("button" + (value ? ".on" : ""), { "data-field": field.name,
      onclick: () => tap(() => { values[field.name] = !value; }) }, label);
  }
  if (field.kind === "choice") {
    return field.choices.filter((c) => c.value !== field.default).map((c) =>
      h("button" + (value === c.value ? ".on" : ""), { "data-field": field.name, "data-value": c.value,
        onclick: () => tap(() => { values[field.name] = value === c.value ? field.default : c.value; }) }, c.label));
  }
  if (field.kind === "int") {
    const n = value ?? field.lo;
    return h("div.counter", { "data-field": field.name },
      h("button", { onclick: () => tap(() => { values[field.name] = Math.max(field.lo, n - 1); }) }, "−"),
      h("span", {}, label + T(":") + n),
      h("button", { onclick: () => tap(() => { values[field.name] = Math.min(field.hi, n + 1); }) }, "+"));
  }
  if (field.kind === "seat") {
    return h("div", { style: "width:100%" }, h("h3", {}, label),
      seatRow(field.name, (s) => value === s, (s) => { values[field.name] = value === s && field.optional ? null : s; }));
  }
  return null;
}

function featuresEditor() {
  const hand = S.hand;
  const values = hand.feats[hand.active];
  const fields = S.form.winner.filter((f) => fieldShown(f, hand));
  const flags = fields.filter((f) => f.kind === "bool" || f.kind === "choice");
  const rest = fields.filter((f) => !(f.kind === "bool" || f.kind === "choice"));
  return [h("div.row", {}, flags.map((f) => fieldControl(f, values, hand.by))),
    ...rest.map((f) => fieldControl(f, values, hand.by))];
}

// -- tiles --------------------------------------------------------------------------------------

const MELD_SIZE = { pung: 3, chow: 3, kong: 3, ckong: 3 };  // a kong counts three towards 14
const TARGETS = [["hand", "Concealed"], ["pung", "Pung"], ["chow", "Chow"], ["kong", "Exposed kong"],
  ["ckong", "Concealed kong"], ["win", "Winning tile"]];

function tileFace(code, extra, attrs) {
  const t = S.form.tiles;
  const label = t.labels[code] || code;
  const face = !code.endsWith("f") ? h("img", { src: "faces/" + code + ".svg", alt: label }) : label;
  return h("button.tile" + (extra || ""), { title: label, "data-tile": code, ...(attrs || {}) }, face);
}

function meldTiles(meld) {
  const n = +meld.tile[0], suit = meld.tile[1];
  if (meld.kind === "chow") return [n, n + 1, n + 2].map((k) => k + suit);
  return Array(meld.kind === "pung" ? 3 : 4).fill(meld.tile);
}

function heldCount(held) {
  return held.hand.length + held.melds.reduce((sum, m) => sum + MELD_SIZE[m.kind], 0) + (held.win ? 1 : 0);
}

function allTiles(held) {
  const out = [...held.hand, ...held.melds.flatMap(meldTiles)];
  if (held.win) out.push(held.win);
  return out;
}

function jokerSet() {
  const t = S.form.tiles;
  if (!t.indicator) return new Set(t.jokers[""] || []);
  return new Set(S.hand.indicator ? t.jokers[S.hand.indicator] || [] : []);
}

const ORDER = (code) => "mpszf".indexOf(code[1]) * 10 + +code[0];

function notation(held) {
  const group = (tiles) => {
    let text = "";
    for (const suit of "mpszf") {
      const digits = tiles.filter((x) => x[1] === suit).map((x) => x[0]).sort().join("");
      if (digits) text += digits + suit;
    }
    return text;
  };
  let text = group(held.hand);
  for (const m of held.melds) {
    const inner = group(meldTiles(m));
    text += m.kind === "ckong" ? "[(" + inner + ")]" : "[" + inner + "]";
  }
  if (held.win) text += "+" + held.win;
  return text;
}

function pickTile(code) {
  const hand = S.hand;
  const held = hand.tiles[hand.active];
  const t = S.form.tiles;
  if (hand.target === "indicator") { hand.indicator = hand.indicator === code ? null : code; hand.target = "hand"; return; }
  const count = (x) => allTiles(held).filter((y) => y === x).length;
  const add = hand.target === "chow" ? [0, 1, 2].map((k) => (+code[0] + k) + code[1])
    : Array(hand.target === "pung" ? 3 : hand.target.endsWith("kong") ? 4 : 1).fill(code);
  if (hand.target === "chow" && (code[1] === "z" || code[1] === "f" || +code[0] > 7)) return;
  if (add.some((x) => count(x) + add.filter((y) => y === x).length > (t.most[x] || 4))) return;
  const size = hand.target === "hand" || hand.target === "win" ? 1 : 3;
  if (hand.target !== "win" && heldCount(held) + size > 14 - (held.win ? 0 : 1)) return;
  if (hand.target === "win") held.win = held.win === code ? null : code;
  else if (hand.target === "hand") held.hand.push(code);
  else held.melds.push({ kind: hand.target, tile: code });
  if (hand.target !== "hand" && hand.target !== "win") hand.target = "hand";
  if (heldCount(held) === 14 - (held.win ? 0 : 1) && !held.win) hand.target = "win";
}

function unpick(kind, index) {
  const held = S.hand.tiles[S.hand.active];
  if (kind === "hand") held.hand.splice(index, 1);
  else if (kind === "meld") held.melds.splice(index, 1);
  else held.win = null;
}

function tilesEditor() {
  const hand = S.hand;
  const held = hand.tiles[hand.active];
  const t = S.form.tiles;
  const wild = jokerSet();
  const mark = (x) => (wild.has(x) ? ".joker" : "");
  const shown = [...held.hand.map((x, i) => [x, i])].sort((a, b) => ORDER(a[0]) - ORDER(b[0]));
  const heldRow = h("div.held", { id: "held" },
    shown.map(([x, i]) => tileFace(x, mark(x), { onclick: () => tap(() => unpick("hand", i)) })),
    held.melds.map((m, i) => h("span.group", { onclick: () => tap(() => unpick("meld", i)) },
      meldTiles(m).map((x) => tileFace(x, mark(x))))),
    held.win ? tileFace(held.win, ".win" + mark(held.win), { onclick: () => tap(() => unpick("win")) }) : null);
  const targets = TARGETS.map(([key, msgid]) => h("button" + (hand.target === key ? ".on" : ""),
    { "data-target": key, onclick: () => tap(() => { hand.target = key; }) }, T(msgid)));
  if (t.indicator) {
    targets.unshift(h("button" + (hand.target === "indicator" ? ".on" : ""), { "data-target": "indicator",
      onclick: () => tap(() => { hand.target = "indicator"; }) },
      T("Turned tile") + (hand.indicator ? " " + t.labels[hand.indicator] : "")));
  }
  const used = allTiles(held);
  const picker = h("div.tiles", { id: "picker" }, t.codes.map((x) => tileFace(x,
    mark(x) + (used.filter((y) => y === x).length >= (t.most[x] || 4) ? ".used" : ""),
    { onclick: () => tap(() => pickTile(x)) })));
  const count = T("Tiles: {count} of {want}", { count: heldCount(held), want: 14 });
  return [h("div.row", {}, h("span.hint", { id: "count" }, count),
      h("button", { onclick: () => tap(() => { hand.tiles[hand.active] = { hand: [], melds: [], win: null }; }) }, T("Clear"))),
    heldRow, h("p.hint", {}, T("Tap a tile above to take it out.")),
    h("div.row", { id: "targets" }, targets), picker,
    h("div.card.reading", { id: "reading" }, readingText())];
}

function readingText() {
  const r = S.reading;
  if (!r || r.key !== readingKey()) return "";
  if (r.error) return h("span.error", {}, r.error);
  const labels = Object.fromEntries(S.form.winner.map((f) => [f.name, f]));
  const feats = Object.entries(r.winner).filter(([k, v]) => k !== "seat" && v && labels[k]).map(([k, v]) => {
    const f = labels[k];
    if (f.kind === "choice") return (f.choices.find((c) => c.value === v) || {}).label || v;
    return f.kind === "int" ? f.label + " " + v : f.label;
  });
  return [h("b", {}, T("Best reading: {value}", { value: r.value })), feats.length ? " · " + feats.join(", ") : ""];
}

function readingKey() {
  const hand = S.hand;
  if (!hand || hand.mode !== "tiles" || hand.active == null) return "";
  const held = hand.tiles[hand.active];
  if (heldCount(held) !== 14 || !held.win) return "";
  return [hand.active, hand.by, hand.indicator, notation(held)].join("|");
}

// when the hand is whole, ask the API for its best reading (the redraw never waits for it)
async function askReading() {
  const key = readingKey();
  if (!key || (S.reading && S.reading.key === key)) return;
  const hand = S.hand;
  const body = { tiles: notation(hand.tiles[hand.active]), seat: hand.active, by: hand.by };
  if (S.form.tiles.indicator && hand.indicator) body.indicator = hand.indicator;
  S.reading = { key };
  const { status, data } = await api("tiles", body);
  if (!S.reading || S.reading.key !== key) return;
  S.reading = status === 200 ? { key, value: data.value, winner: data.winner } : { key, error: data.error };
  const box = document.getElementById("reading");
  if (box) box.replaceChildren(...[].concat(readingText()));
}

// a tap: change the local state, redraw at once; the reading is fetched after the paint
function tap(change) {
  const started = performance.now();
  change();
  draw();
  window.lastTapMs = performance.now() - started;
  if (S.screen === "hand") setTimeout(askReading, 0);
}

// -- preview and confirm ----------------------------------------------------------------------

function events() {
  const hand = S.hand;
  const out = [...hand.done];
  if (hand.winners.length) out.push(currentWin());
  if (hand.exhausted) {
    const end = { type: "exhausted" };
    const won = out.flatMap((e) => e.winners.map((w) => w.seat));
    if (S.form.exhausted_ready) end.ready = Object.fromEntries([0, 1, 2, 3].filter((s) => !won.includes(s)).map((s) => [s, null]));
    out.push(end);
  }
  return out;
}

// Luzhou: this win is kept, the next one is entered on a clean form
function anotherWin() {
  const hand = S.hand;
  if (!hand.winners.length) return;
  hand.done.push(currentWin());
  Object.assign(hand, { by: "self_draw", from: null, winners: [], event: {}, active: null, target: "hand" });
  S.reading = null;
}

function currentWin() {
  const hand = S.hand;
  const event = { type: "win", by: hand.by };
  if (hand.by !== "self_draw") event.from = hand.from;
  for (const f of S.form.event) {
    const v = hand.event[f.name];
    if (fieldShown(f, hand) && v != null && v !== f.default) event[f.name] = v;
  }
  event.winners = hand.winners.map((seat) => {
    const w = { seat };
    if (hand.mode === "tiles") {
      w.tiles = notation(hand.tiles[seat]);
      if (S.form.tiles.indicator && hand.indicator) w.indicator = hand.indicator;
      return w;
    }
    for (const f of S.form.winner) {
      const v = hand.feats[seat][f.name];
      if (fieldShown(f, hand) && v != null && v !== f.default) w[f.name] = v;
    }
    return w;
  });
  return event;
}

async function showPreview() {
  const { status, data } = await api("preview", { events: events() });
  if (status !== 200) { note(data.error); return; }
  S.preview = { html: data.html, mark: data.mark, events: data.events, sent: events() };
  draw();
}

function previewScreen() {
  const p = S.preview;
  return [p.changed ? h("p.error", { id: "changed" }, p.changed) : null,
    h("div.card.chat", { id: "preview-html", html: p.html }),
    h("div.actions", {},
      h("button", { id: "back", onclick: () => { S.preview = null; draw(); } }, T("Back")),
      h("button.primary", { id: "confirm", onclick: confirmHand }, T("Confirm")))];
}

async function confirmHand() {
  const p = S.preview;
  const { status, data } = await api("confirm", { events: p.sent, mark: p.mark });
  if (status === 409 && data.html) {  // the table changed: the fresh preview, to confirm again
    S.preview = { ...p, html: data.html, mark: data.mark, changed: data.error };
    draw();
    return;
  }
  if (status !== 200) { note(data.error); return; }
  S.preview = null;
  S.hand = null;
  S.reading = null;
  S.screen = "table";
  note(T("Booked."));
  await refresh();
}

// -- settling up ---------------------------------------------------------------------------------

async function loadSettle() {
  const { status, data } = await api("settle");
  S.settle = status === 200 ? data : { error: data.error };
  if (S.screen === "settle") draw();
}

function settleScreen() {
  const s = S.settle;
  if (!s) return [h("p.hint", {}, T("Loading…"))];
  if (s.error) return [h("p.error", {}, s.error)];
  const rows = [...s.transfers, ...s.pending].map((tr) => h("div.row.card", { "data-transfer": tr.payer + ">" + tr.payee },
    h("span", { style: "flex:1" }, tr.text),
    tr.may_confirm ? h("button.primary", { onclick: () => received(tr) }, T("Received")) : null));
  return [h("div.card.chat", { id: "settle-html", html: s.html }),
    rows.length ? h("h3", {}, T("Who pays whom")) : null, ...rows];
}

async function received(tr) {
  const body = tr.payment ? { payment: tr.payment } : { payer: tr.payer, payee: tr.payee, cents: tr.cents };
  const { status, data } = await api("received", body);
  if (status !== 200) { note(data.error); return; }
  S.settle = data;
  draw();
}

// -- start ----------------------------------------------------------------------------------------

function applyTheme(params) {
  for (const [key, value] of Object.entries(params || {})) {
    document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), value);
  }
}

function loadScript(src) {
  return new Promise((resolve) => {
    const el = h("script", { src });
    el.onload = el.onerror = resolve;
    document.head.append(el);
  });
}

async function boot() {
  document.getElementById("lang").addEventListener("change", (e) => {
    S.lang = e.target.value;
    localStorage.setItem("lang", S.lang);
    S.settle = null;
    refresh().then(() => { if (S.screen === "settle") loadSettle(); });
  });
  // Telegram's script only inside Telegram (it opens the page with tgWebAppData in the hash)
  if (!webApp() && /tgWebAppData=/.test(location.hash + location.search)) await loadScript(TG_SCRIPT);
  const app = webApp();
  if (app) {
    document.body.classList.add("telegram");
    applyTheme(app.themeParams);
    if (app.onEvent) app.onEvent("themeChanged", () => applyTheme(app.themeParams));
    if (app.ready) app.ready();
    if (app.expand) app.expand();
  }
  await refresh();
}

boot();
