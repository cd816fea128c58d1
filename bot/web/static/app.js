// Mahjong Ledger's page: standings, history, a hand by features or by tiles, settling up.
// Every word comes from the server (the chat's catalogues), every number from its API; taps
// change only the local state and redraw at once, the API is asked when a hand is whole.
"use strict";

const INIT_HEADER = document.querySelector('meta[name="init-data-header"]').content;
const TG_SCRIPT = "https://telegram.org/js/telegram-web-app.js";
// The language chosen is remembered in localStorage where the browser allows it; where it
// refuses storage (a cross-site frame, as Telegram's web client frames the page; strict
// settings) reading or writing throws, and the page goes on without remembering.
function remembered(key) {
  try { return window.localStorage.getItem(key); } catch (_) { return null; }
}
function remember(key, value) {
  try { window.localStorage.setItem(key, value); } catch (_) { /* not remembered: no harm */ }
}

const S = {
  lang: remembered("lang") || "", strings: {}, state: null, form: null,
  screen: "table", hand: null, preview: null, reading: null, settle: null, error: "",
  problem: null,  // what the last action could not do, shown beside it until the next tap
  table: null,  // the session id of the table shown, where the chat runs several
};

const webApp = () => (window.Telegram && window.Telegram.WebApp) || null;

function T(msgid, params) {
  let text = S.strings[msgid] || msgid;
  for (const key in params || {}) text = text.split("{" + key + "}").join(String(params[key]));
  return plain(text);
}

// h("button.on", {onclick}, "text", child…): a small element builder
function h(tag, attrs, ...kids) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "html") el.innerHTML = glyphs(v);  // the chat's own HTML, escaped by the server
    else if (v !== false && v != null) el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat(Infinity)) if (kid != null && kid !== false) el.append(kid);
  return el;
}

// `type`: the body is sent as it is, of that type (a photo); else it is JSON
async function api(path, body, type) {
  const headers = { "Content-Type": type || "application/json" };
  const app = webApp();
  if (app && app.initData) headers[INIT_HEADER] = app.initData;
  const params = [];
  if (S.lang) params.push("lang=" + encodeURIComponent(S.lang));
  if (S.table) params.push("table=" + encodeURIComponent(S.table));  // of several, the one shown
  const query = params.length ? "?" + params.join("&") : "";
  let resp;
  try {
    resp = await fetch("api/" + path + query, { method: "POST", headers, body: type ? body : JSON.stringify(body || {}) });
  } catch (err) {
    return { status: 0, data: { error: T("This table cannot be reached: {error}", { error: err.message }) } };
  }
  let data;
  try { data = await resp.json(); } catch (_) { data = { error: String(resp.status) }; }
  return { status: resp.status, data };
}

// The chat's HTML on the page: a mahjong tile's character (🀄) drawn from the page's own tile faces,
// and emoji, which only decorate (💰 ⏳ 🤝), left out: without an emoji font they are empty boxes.
const TILE_CHARS = ["1z", "2z", "3z", "4z", "7z", "6z", "5z",
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => n + "m"), ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => n + "s"),
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => n + "p"), ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => n + "f")];
const EMOJI = /[\u{1F300}-\u{1FAFF}\u{2600}-\u{26FF}\u{23E9}-\u{23FA}\u{2B50}\u{2705}\u{274C}\u{2728}]\u{FE0F}?\s?/gu;

// the chat's seat symbols, as every font draws them (the chat's own emoji need an emoji font)
const SYMBOLS = { "🙋": "＋", "🚪": "✕" };

function plain(text) {
  return String(text).replace(/🙋|🚪/gu, (ch) => SYMBOLS[ch]).replace(EMOJI, "");
}

function glyphs(html) {
  return String(html).replace(/[\u{1F000}-\u{1F02B}]\u{FE0F}?/gu, (ch) => {
    const code = TILE_CHARS[ch.codePointAt(0) - 0x1F000];
    return code ? '<img class="glyph" alt="' + ch + '" src="faces/' + code + '.svg">' : "";
  }).replace(/🙋|🚪/gu, (ch) => SYMBOLS[ch]).replace(EMOJI, "");
}

// a refusal or a question after an action: shown beside the buttons until the next tap (never
// over the title and tabs); `hint`: it asks for more rather than refuses
function problem(text, hint) {
  S.problem = text ? { text: plain(text), hint: !!hint } : null;
  draw();
  const box = document.getElementById("problem");
  if (box && box.scrollIntoView) box.scrollIntoView({ block: "nearest" });
}

function note(text) {
  const box = document.getElementById("note");
  box.textContent = text;
  box.hidden = !text;
  if (text) {  // over the title, up to the language menu, which stays in sight
    const menu = document.getElementById("lang").getBoundingClientRect();
    box.style.width = Math.max(menu.left - box.getBoundingClientRect().left - 8, 160) + "px";
  }
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
  S.table = data.session ? data.session.id : null;  // the server's choice when none was asked
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
  const screens = { table: tableScreen, history: historyScreen, hand: handScreen, settle: settleScreen,
    new: newSession };
  const parts = [].concat(tablesRow(), (screens[S.screen] || tableScreen)()).flat(Infinity).filter((x) => x != null && x !== false);
  if (S.problem) {
    const box = h("p" + (S.problem.hint ? ".hint.asked" : ".error"), { id: "problem", role: "alert" }, S.problem.text);
    const bar = parts.find((el) => el.classList && el.classList.contains("actions"));
    if (bar) bar.prepend(box); else parts.push(box);  // in the sticky bar, above its buttons
  }
  main.replaceChildren(...parts);
}

// the chat's tables, where it runs several: a button each, the one shown lit
function tablesRow() {
  const tables = S.state.tables || [];
  if (tables.length < 2 || S.screen === "new") return null;
  return h("div.tables", { id: "tables", role: "tablist", "aria-label": T("Tables") }, tables.map((table) =>
    h("button" + (table.id === S.table ? ".on" : ""), { "data-table": table.id, role: "tab",
      "aria-selected": table.id === S.table ? "true" : "false", onclick: () => switchTable(table.id) },
      h("b", {}, table.label), h("span.who", {}, table.names.join(" · ")))));
}

async function switchTable(id) {
  if (id === S.table) return;
  S.table = id;
  S.hand = null;  // an entry belongs to its table
  S.preview = null;
  S.settle = null;
  await refresh();
  if (S.screen === "settle") loadSettle();
}

function go(screen) {
  S.screen = screen;
  S.problem = null;
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
  if (S.state.local || S.state.may_book) {
    out.push(seatingCard(session));
    out.push(h("div.row", {}, h("button", { id: "end", onclick: endSession }, T("End the session")),
      S.state.local ? h("button", { id: "another", onclick: () => go("new") }, T("Start another table")) : null));
  }
  return out;
}

// seats that change hands from the next hand on (/seat in the chat): give up, swap, a guest in
const SWAPS = [[0, 1], [1, 2], [2, 3], [0, 2], [1, 3], [3, 0]];

function seatingCard(session) {
  const winds = S.state.winds;
  const change = async (body) => {
    const { status, data } = await api("seat", body);
    if (status !== 200) { problem(data.error); return; }
    S.state = data;
    draw();
  };
  const seats = [0, 1, 2, 3].map((seat) => session.names[seat]
    ? h("button", { id: "leave-" + seat, onclick: () => change({ op: "leave", seat }) },
        "✕ " + winds[seat] + " " + session.names[seat])
    : h("button", { id: "sit-" + seat, disabled: S.state.local,
        onclick: () => change({ op: "sit", seat }) }, "＋ " + winds[seat]));
  const swaps = SWAPS.map(([a, b]) => h("button", { id: "swap-" + a + "-" + b,
    onclick: () => change({ op: "swap", seat: a, other: b }) }, "⇅ " + winds[a] + "↔" + winds[b]));
  const name = h("input", { id: "guest-name", maxlength: 64, autocomplete: "off",
    placeholder: T("Guest's name"), "aria-label": T("Guest's name") });
  const where = h("select", { id: "guest-seat", "aria-label": T("Seating") },
    winds.map((w, seat) => h("option", { value: seat }, w)));
  const sit = h("button.primary", { id: "guest-sit", onclick: () =>
    change({ op: "guest", seat: Number(where.value), name: name.value.trim() }) }, T("Sit"));
  return h("div.card", { id: "seating" }, h("h3", {}, T("Seating")),
    h("p.hint", {}, T("Changes count from the next hand on; nothing booked changes. 🙋 sits you in an empty seat, 🚪 gives a seat up, ⇅ swaps two seats.")),
    h("div.seats", {}, seats), h("div.seats", {}, swaps), h("div.row.guest", {}, name, where, sit));
}

function historyScreen() {
  const blocks = S.state.session.history_html;
  if (!blocks.length) return [h("p.hint", {}, T("No hands yet."))];
  return blocks.map((html) => h("div.card.chat", { html }));
}

function newSession() {
  // what was typed survives a redraw (the language changed, the page refreshed meanwhile)
  const typed = S.typed || (S.typed = { variant: "", names: ["", "", "", ""], stake: "" });
  const variant = h("select", { id: "variant", onchange: (e) => { typed.variant = e.target.value; } },
    S.state.variants.map((v) => h("option", { value: v.name, selected: v.name === typed.variant }, v.title)));
  const names = [0, 1, 2, 3].map((i) => h("input", { name: "name" + i, maxlength: 64, autocomplete: "off",
    placeholder: S.state.winds[i], "aria-label": S.state.winds[i], value: typed.names[i],
    oninput: (e) => { typed.names[i] = e.target.value; } }));
  const stake = h("input", { id: "stake", inputmode: "decimal", placeholder: "0.5", value: typed.stake,
    oninput: (e) => { typed.stake = e.target.value; } });
  const another = !!S.state.session;  // a table beside the one running
  const start = async () => {
    const { status, data } = await api("session", {
      variant: variant.value, names: names.map((n) => n.value.trim()), stake: stake.value.trim(), another });
    if (status !== 200) { problem(data.error); return; }
    S.screen = "table";
    S.typed = null;
    S.table = data.session ? data.session.id : null;  // the new table
    await refresh();
  };
  return [h("p.hint", {}, another ? T("Start another table") : T("No session is running.")),
    h("div.card", {}, variant, h("h3", {}, T("Players, East to North")), h("div.names", {}, names),
      h("h3", {}, T("Stake per point (optional)")), stake,
      h("div.row", {}, h("button.primary", { id: "start", onclick: start }, T("Start the session"))))];
}

async function endSession() {
  if (!window.confirm(T("End this session? Its hands stay in the books."))) return;
  const { status, data } = await api("end");
  await refresh();
  if (status !== 200) problem(data.error);
}

// -- a hand -------------------------------------------------------------------------------------

function newHand() {
  return { session: S.state.session.id, by: "self_draw", from: null, winners: [], mode: "features",
    event: {}, feats: {}, tiles: {}, active: null, target: "hand", indicator: null,
    done: [], exhausted: false, end: null, extras: [], picking: null };
}

const copy = (value) => JSON.parse(JSON.stringify(value));
// a field's name as a heading: "Hero chicken" (the chat's terms run in a sentence's lower case)
const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);

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
  // a wall run out ends the hand with no win; in a blood battle it may follow the wins so
  // far, so it is a button of its own there
  const drawn = hand.exhausted && !form.blood_battle;
  const winless = drawn || (hand.exhausted && !hand.winners.length);  // no "how" to light
  const byRow = form.by.map((b) => h("button" + (hand.by === b.value && !winless ? ".on" : ""),
    { "data-by": b.value, onclick: () => tap(() => { hand.exhausted = false; setBy(b.value); }) }, b.label));
  out.push(h("h3", {}, T("How it was won")), h("div.row.grow", {}, byRow));
  if (form.exhausted && !form.blood_battle) out.push(h("div.row.grow", {}, exhaustedButton()));
  if (drawn) {
    out.push(exhaustedCard(), extrasSection(),
      h("div.actions", {}, h("button.primary", { id: "preview", onclick: showPreview }, T("Preview"))));
    return out;
  }
  const won = hand.done.flatMap((e) => e.winners.map((w) => w.seat));
  if (won.length) out.push(h("p.hint", { id: "won" }, T("Won so far: {names}", { names: won.map(seatName).join(", ") })));
  out.push(h("h3", {}, T("Winner")), seatRow("winner", (s) => hand.winners.includes(s), (s) => toggleWinner(s),
    (s) => won.includes(s)));
  if (hand.by !== "self_draw") {
    out.push(h("h3", {}, T("From whom")), seatRow("from", (s) => hand.from === s, (s) => { hand.from = s; },
      (s) => hand.winners.includes(s)));
  }
  if (!hand.winners.length) {
    if (form.blood_battle) out.push(h("div.row.grow", {}, exhaustedButton()), hand.exhausted ? exhaustedCard() : null);
    out.push(extrasSection());
    const ends = new Set(form.extras.filter((x) => x.ends_hand).map((x) => x.type));  // each seat's points
    if (hand.done.length || hand.exhausted || hand.extras.some((e) => ends.has(e.type))) {
      out.push(h("div.actions", {}, h("button.primary", { id: "preview", onclick: showPreview }, T("Preview"))));
    }
    return out;
  }
  const flags = form.event.filter((f) => fieldShown(f, hand));
  if (flags.length) out.push(fieldsEditor(flags, hand.event, { by: hand.by, key: "win" }));
  if (form.by_tiles) {
    out.push(h("div.row.grow", {},
      h("button" + (hand.mode === "features" ? ".on" : ""), { id: "mode-features", onclick: () => tap(() => { hand.mode = "features"; }) }, T("By features")),
      h("button" + (hand.mode === "tiles" ? ".on" : ""), { id: "mode-tiles", onclick: () => tap(() => { hand.mode = "tiles"; }) }, T("By tiles"))));
  } else hand.mode = "features";
  if (hand.winners.length > 1) {
    out.push(h("div.row.grow", {}, hand.winners.map((s) => h("button" + (hand.active === s ? ".on" : ""),
      { onclick: () => tap(() => { hand.active = s; }) }, seatName(s)))));
  }
  out.push(h("div", { id: "editor" }, hand.mode === "features" ? featuresEditor() : tilesEditor()));
  if (S.form.blood_battle) {
    out.push(h("div.row.grow", {},
      h("button", { id: "another", onclick: () => tap(anotherWin) }, T("Another win in this hand")),
      exhaustedButton()));
    if (hand.exhausted) out.push(exhaustedCard());
  }
  out.push(extrasSection());
  out.push(h("div.actions", {}, h("button.primary", { id: "preview", onclick: showPreview }, T("Preview"))));
  return out;
}

function exhaustedButton() {
  const hand = S.hand;
  return h("button" + (hand.exhausted ? ".on" : ""), { id: "exhausted", onclick: () => tap(() => {
    hand.exhausted = !hand.exhausted;
    if (hand.exhausted && !hand.end) hand.end = copy(S.form.exhausted.blank);
  }) }, S.form.exhausted.title);
}

function wonSeats() {
  const hand = S.hand;
  const drawn = hand.exhausted && !S.form.blood_battle;
  return [...hand.done.flatMap((e) => e.winners.map((w) => w.seat)), ...(drawn ? [] : hand.winners)];
}

// the wall's end: each seat still in the hand ready or not (and with what), where the variant asks
function exhaustedCard() {
  const form = S.form.exhausted;
  if (!form.fields.length) return null;
  const won = wonSeats();
  return h("div.card", { id: "exhausted-form" }, h("b", {}, form.title),
    fieldsEditor(form.fields, S.hand.end, { hidden: (s) => won.includes(s), key: "end" }));
}

// other events of the hand, as the chat's wizard offers them: kongs before the win, accounting
// after it (chickens, 精, ready declarations …); each in a card of its own with its fields
function extrasSection() {
  const hand = S.hand;
  const offered = S.form.extras;
  if (!offered.length) return null;
  const byType = Object.fromEntries(offered.map((x) => [x.type, x]));
  const cards = hand.extras.map((e, i) => h("div.card", { "data-event": i, "data-type": e.type },
    h("div.row", {}, h("b", { style: "flex:1" }, byType[e.type].title),
      h("button", { "data-remove": i, "aria-label": T("Remove"),
        onclick: () => tap(() => { hand.extras.splice(i, 1); }) }, "✕")),
    fieldsEditor(byType[e.type].fields, e.values, { key: "x" + i })));
  return [h("h3", {}, T("Also in this hand")), ...cards,
    h("div.row", { id: "extras" }, offered.map((x) => h("button", { "data-add": x.type,
      onclick: () => tap(() => { hand.extras.push({ type: x.type, values: copy(x.blank) }); }) }, "+ " + x.title)))];
}

function seatRow(name, isOn, set, hidden) {
  // `hidden`: seats left out (the winner in his own fields, seats that won in a ready map)
  return h("div.row.grow.seats", { "data-row": name }, [0, 1, 2, 3].filter((s) => !(hidden && hidden(s)))
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

// a form's fields: toggles and choices in one wrapping row, the others below, as in the chat
function fieldsEditor(fields, values, opts) {
  const flags = fields.filter((f) => f.kind === "bool" || f.kind === "choice");
  const rest = fields.filter((f) => !(f.kind === "bool" || f.kind === "choice"));
  return [flags.length ? h("div.row", {}, flags.map((f) => fieldControl(f, values, opts.by, opts))) : null,
    ...rest.map((f) => fieldControl(f, values, opts.by, opts))];
}

// one control per field, from the wizard's own form (toggle, choice, counter, seat, seats,
// per-seat map, tile, nested hand)
function fieldControl(field, values, by, opts) {
  opts = opts || {};
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
    const step = (k, text) => h("button", { "data-step": k,
      onclick: () => tap(() => { values[field.name] = Math.min(field.hi, Math.max(field.lo, n + k)); }) }, text);
    const wide = field.hi - field.lo > 20;  // a hand's points: ten at a time too, as in the chat
    return h("div.counter", { "data-field": field.name }, wide ? step(-10, "−10") : null, step(-1, "−"),
      h("span", {}, label + T(":") + n), step(1, "+"), wide ? step(10, "+10") : null);
  }
  if (field.kind === "seat") {
    return h("div", { style: "width:100%" }, h("h3", {}, cap(label)),
      seatRow(field.name, (s) => value === s, (s) => { values[field.name] = value === s && field.optional ? null : s; },
        (s) => opts.hidden && opts.hidden(s) && value !== s));
  }
  if (field.kind === "seats") {
    const chosen = value || [];
    return h("div", { style: "width:100%" }, h("h3", {}, cap(label)),
      seatRow(field.name, (s) => chosen.includes(s), (s) => {
        values[field.name] = chosen.includes(s) ? chosen.filter((x) => x !== s) : [...chosen, s].sort();
      }, (s) => opts.hidden && opts.hidden(s) && !chosen.includes(s)));
  }
  if (field.kind === "seat_map") return seatMap(field, values, label, opts);
  if (field.kind === "tile") return tileField(field, values, label, opts);
  if (field.kind === "object") {
    if (!values[field.name] || typeof values[field.name] !== "object") values[field.name] = {};
    return h("div", { style: "width:100%" }, h("h3", {}, cap(label)),
      fieldsEditor(field.fields, values[field.name], { key: opts.key + "." + field.name }));
  }
  return null;
}

// seat → a count (who fed the winner how many melds), or a hand (ready or not; chickens, 精 held)
function seatMap(field, values, label, opts) {
  const map = values[field.name] || (values[field.name] = {});
  const one = field.value;
  const seats = [0, 1, 2, 3].filter((s) => !(opts.hidden && opts.hidden(s)) || String(s) in map);
  if (one.kind === "int" && one.lo < 0) return signedMap(field, map, label);
  const rows = seats.map((s) => {
    const key = String(s);
    if (one.kind === "int") {
      const n = map[key] || 0;
      const set = (k) => { if (k < one.lo) delete map[key]; else map[key] = Math.min(one.hi, k); };
      return h("div.counter", { "data-seat": s },
        h("button", { onclick: () => tap(() => set(n - 1)) }, "−"),
        h("span", {}, seatName(s) + T(":") + n),
        h("button", { onclick: () => tap(() => set(Math.max(n + 1, one.lo))) }, "+"));
    }
    if (one.optional) {  // ready or not (or a word in place of a hand: 花猫)
      const entry = map[key];
      const ready = entry != null && typeof entry === "object";
      const choice = (text, on, set, data) => h("button" + (on ? ".on" : ""), { "data-state": data,
        onclick: () => tap(set) }, text);
      return h("div.card.inner", { "data-seat": s }, h("div.row", {}, h("b.who", {}, seatName(s)),
        choice(field.name === "ready" ? S.form.words.not_ready : "✗", entry == null, () => { map[key] = null; }, "none"),
        choice(field.name === "ready" ? S.form.words.ready : "✓", ready, () => { if (!ready) map[key] = {}; }, "hand"),
        one.words.map((w) => choice(w.label, entry === w.value, () => { map[key] = w.value; }, w.value))),
        ready ? fieldsEditor(one.fields, entry, { key: opts.key + "." + key }) : null);
    }
    if (!map[key]) map[key] = {};  // every seat's hand, its counters at 0 until tapped
    if (one.fields.every((f) => f.kind === "int")) {  // chickens, 精: a tap counts one more
      return h("div.row", { "data-seat": s }, h("b.who", {}, seatName(s)),
        one.fields.map((f) => countChip(f, map[key])));
    }
    return h("div.card.inner", { "data-seat": s }, h("b", {}, seatName(s)),
      fieldsEditor(one.fields, map[key], { key: opts.key + "." + key }));
  });
  return h("div", { style: "width:100%", "data-map": field.name }, h("h3", {}, cap(label)), rows);
}

// each seat's points won (+) or lost (−), by one or ten, under their sum (which must be 0);
// a seat at 0 is left out of the map, as the chat's counters leave it
function signedMap(field, map, label) {
  const one = field.value;
  const sum = Object.values(map).reduce((a, b) => a + b, 0);
  const signed = (n) => (n > 0 ? "+" + n : n < 0 ? "−" + -n : "±0");
  const rows = [0, 1, 2, 3].map((s) => {
    const key = String(s);
    const n = map[key] || 0;
    const step = (k, text) => h("button", { "data-step": k, onclick: () => tap(() => {
      const next = Math.min(one.hi, Math.max(one.lo, n + k));
      if (next) map[key] = next; else delete map[key];
    }) }, text);
    return h("div.counter", { "data-seat": s }, step(-10, "−10"), step(-1, "−"),
      h("span", {}, seatName(s) + T(":") + signed(n)), step(1, "+"), step(10, "+10"));
  });
  // the card's title names the event: its heading is the sum alone
  return h("div", { style: "width:100%", "data-map": field.name, "aria-label": label }, h("h3", {},
    "Σ ", h("span" + (sum ? ".off" : ""), { id: "sum" }, signed(sum))), rows);
}

// a count in one tap: each tap one more, past the most back to none
function countChip(field, values) {
  const n = values[field.name] || 0;
  return h("button.chip" + (n ? ".on" : ""), { "data-field": field.name,
    onclick: () => tap(() => { values[field.name] = n >= field.hi ? field.lo : n + 1; }) },
  field.label + (n ? " ×" + n : ""));
}

// a tile (a flipped chicken tile): its face, and the picker while none is chosen
function tileField(field, values, label, opts) {
  const key = opts.key + "." + field.name;
  const value = values[field.name];
  const open = !value || S.hand.picking === key;
  const codes = S.form.tiles.codes.filter((x) => !isFlower(x));
  return h("div", { style: "width:100%", "data-tile-field": field.name }, h("h3", {}, cap(label)),
    value ? h("div.row.chosen", {}, tileFace(value, open ? ".on" : "", { onclick: () => tap(() => {
      S.hand.picking = open ? null : key; }) })) : null,
    open ? h("div.tiles", {}, codes.map((x) => tileFace(x, x === value ? ".on" : "", { onclick: () => tap(() => {
      values[field.name] = x; S.hand.picking = null; }) }))) : null);
}

function featuresEditor() {
  const hand = S.hand;
  const fields = S.form.winner.filter((f) => fieldShown(f, hand));
  // the winner is left out of his own seat fields (who fed him, who is liable)
  return fieldsEditor(fields, hand.feats[hand.active], { by: hand.by, key: "w" + hand.active,
    hidden: (s) => s === hand.active });
}

// -- tiles --------------------------------------------------------------------------------------

const MELD_SIZE = { pung: 3, chow: 3, kong: 3, ckong: 3 };  // a kong counts three towards 14
const TARGETS = [["hand", "Concealed"], ["pung", "Pung"], ["chow", "Chow"], ["kong", "Exposed kong"],
  ["ckong", "Concealed kong"], ["win", "Winning tile"]];

function tileFace(code, extra, attrs) {
  const t = S.form.tiles;
  const label = t.labels[code] || code;
  return h("button.tile" + (extra || ""), { title: label, "data-tile": code, ...(attrs || {}) },
    h("img", { src: "faces/" + code + ".svg", alt: label }));
}

function meldTiles(meld) {
  const n = +meld.tile[0], suit = meld.tile[1];
  if (meld.kind === "chow") return [n, n + 1, n + 2].map((k) => k + suit);
  return Array(meld.kind === "pung" ? 3 : 4).fill(meld.tile);
}

const isFlower = (code) => code.endsWith("f") || code.endsWith("a");  // a flower or an animal

// tiles towards the 14 (a flower is set aside and a new tile drawn: it does not count)
function heldCount(held) {
  return held.hand.filter((x) => !isFlower(x)).length + held.melds.reduce((sum, m) => sum + MELD_SIZE[m.kind], 0) + (held.win ? 1 : 0);
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

const ORDER = (code) => "mpszfa".indexOf(code[1]) * 10 + +code[0];

function notation(held) {
  const group = (tiles) => {
    let text = "";
    for (const suit of "mpszfa") {
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
  if (isFlower(code)) {  // beside the hand, whatever the target: one of each flower
    if (!count(code)) held.hand.push(code);
    return;
  }
  const add = hand.target === "chow" ? [0, 1, 2].map((k) => (+code[0] + k) + code[1])
    : Array(hand.target === "pung" ? 3 : hand.target.endsWith("kong") ? 4 : 1).fill(code);
  if (hand.target === "chow" && (code[1] === "z" || +code[0] > 7)) return;
  if (add.some((x) => count(x) + add.filter((y) => y === x).length > (t.most[x] || 4))) return;
  const size = hand.target === "hand" || hand.target === "win" ? 1 : 3;
  if (hand.target !== "win" && heldCount(held) + size > 14 - (held.win ? 0 : 1)) return;
  if (hand.target === "win") held.win = held.win === code ? null : code;
  else if (hand.target === "hand") held.hand.push(code);
  else held.melds.push({ kind: hand.target, tile: code });
  if (hand.target !== "hand" && hand.target !== "win") hand.target = "hand";
  if (heldCount(held) === 14 - (held.win ? 0 : 1) && !held.win) hand.target = "win";
}

// a tile of the hand held becomes its winning tile (the photo does not say which one it was)
function winFromHand(index) {
  const hand = S.hand;
  const held = hand.tiles[hand.active];
  held.win = held.hand.splice(index, 1)[0];
  hand.target = "hand";
}

// a photo of the winner's hand: the API reads it (nothing is booked) and its tiles fill the
// winner's, flowers included where the style counts them, for the player to check
async function readPhoto(input) {
  const file = input.files && input.files[0];
  input.value = "";  // the same picture may be chosen again
  const hand = S.hand;
  if (!file || !hand || hand.active == null) return;
  const seat = hand.active;
  hand.photo = { seat, busy: true };
  S.problem = null;
  draw();
  const { status, data } = await api("photo", file, file.type || "application/octet-stream");
  if (S.hand !== hand) return;  // booked or left meanwhile
  hand.photo = null;
  if (status !== 200) { problem(data.error); return; }
  hand.tiles[seat] = { hand: [...data.hand, ...data.flowers], melds: [], win: null, photo: true };
  hand.active = seat;
  hand.target = "hand";
  hand.photo = { seat, note: data.note, unsure: data.unsure };
  S.reading = null;
  tap(() => {});
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
  const photo = hand.photo && hand.photo.seat === hand.active ? hand.photo : null;
  const unsure = new Set(photo && held.photo ? photo.unsure : []);  // the photo's doubts, marked
  // a whole hand without its winning tile (a photo's): a tap names the winning tile
  const naming = hand.target === "win" && !held.win && heldCount(held) === 14;
  const heldRow = h("div.held", { id: "held" },
    shown.map(([x, i]) => tileFace(x, mark(x) + (unsure.has(x) ? ".unsure" : ""),
      { onclick: () => tap(() => (naming && !isFlower(x) ? winFromHand(i) : unpick("hand", i))) })),
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
  // the style's counter is missing here: said at once, not after the fourteenth tile
  const cannot = t.cannot_count ? h("p.counter-missing", { id: "cannot-count", role: "note" }, t.cannot_count) : null;
  // the winner's tiles from a photo (on a phone the file input offers the camera)
  const picture = h("input", { type: "file", accept: "image/*", id: "photo-file", hidden: true,
    onchange: (e) => readPhoto(e.target) });
  const busy = photo && photo.busy;
  return [cannot, h("div.row", {}, h("span.hint", { id: "count", style: "flex:1" }, count),
      h("button", { id: "photo", disabled: !!busy, onclick: () => picture.click() },
        busy ? T("Reading the photo…") : T("Photo")), picture,
      h("button", { onclick: () => tap(() => { hand.tiles[hand.active] = { hand: [], melds: [], win: null }; hand.photo = null; }) }, T("Clear"))),
    photo && photo.note ? h("p.hint.photo-note", { id: "photo-note", role: "status" }, photo.note) : null,
    heldRow, h("p.hint", {}, naming ? T("Tap the winning tile above.") : T("Tap a tile above to take it out.")),
    h("div.row", { id: "targets" }, targets), picker,
    h("div.card.reading", { id: "reading" }, readingText()), storyEditor()];
}

// what the tiles cannot show (天胡, 杠上花, 绝张 …): the winner's other features, one tap away,
// sent beside the tiles (the same values as the features' form keeps for this seat)
function storyFields() {
  const story = new Set(S.form.tiles.story);
  return S.form.winner.filter((f) => story.has(f.name) && fieldShown(f, S.hand));
}

function storyEditor() {
  const hand = S.hand;
  const fields = storyFields();
  if (!fields.length) return null;
  return h("div", { id: "story" }, h("h3", {}, T("What the tiles cannot show")),
    fieldsEditor(fields, hand.feats[hand.active], { by: hand.by, key: "w" + hand.active,
      hidden: (s) => s === hand.active }));
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
  return [h("b", {}, r.label), feats.length ? " · " + feats.join(", ") : ""];
}

function readingKey() {
  const hand = S.hand;
  if (!hand || hand.mode !== "tiles" || hand.active == null) return "";
  const held = hand.tiles[hand.active];
  if (heldCount(held) !== 14 || !(held.win || held.photo)) return "";  // a photo names none
  return [hand.active, hand.by, hand.indicator, notation(held), !!hand.event.after_kong,
    JSON.stringify(storyOf(hand.active))].join("|");
}

// what the page says of a winner beside the tiles, sent with them: a style that counts the whole
// hand counts 杠上开花, 绝张 or 妙手回春 with the tiles, its minimum included
function storyOf(seat) {
  const out = {};
  for (const f of storyFields()) {
    const v = (S.hand.feats[seat] || {})[f.name];
    if (v != null && v !== f.default) out[f.name] = v;
  }
  return out;
}

// when the hand is whole, ask the API for its best reading (the redraw never waits for it)
async function askReading() {
  const key = readingKey();
  if (!key || (S.reading && S.reading.key === key)) return;
  const hand = S.hand;
  const body = { tiles: notation(hand.tiles[hand.active]), seat: hand.active, by: hand.by,
    story: storyOf(hand.active), after_kong: !!hand.event.after_kong };
  if (S.form.tiles.indicator && hand.indicator) body.indicator = hand.indicator;
  S.reading = { key };
  const { status, data } = await api("tiles", body);
  if (!S.reading || S.reading.key !== key) return;
  S.reading = status === 200 ? { key, label: data.label, winner: data.winner } : { key, error: data.error };
  const box = document.getElementById("reading");
  if (box) box.replaceChildren(...[].concat(readingText()));
}

// a tap: change the local state, redraw at once; the reading is fetched after the paint
function tap(change) {
  const started = performance.now();
  S.problem = null;
  change();
  draw();
  window.lastTapMs = performance.now() - started;
  if (S.screen === "hand") setTimeout(askReading, 0);
}

// -- preview and confirm ----------------------------------------------------------------------

// the hand's events in the order the record wants them: kongs and the like, the wins, the
// wall's end, then the accounting that follows the end (the server drops fields left at default)
function events() {
  const hand = S.hand;
  const afterEnd = new Set(S.form.extras.filter((x) => x.after_end).map((x) => x.type));
  const fields = Object.fromEntries(S.form.extras.map((x) => [x.type, x.fields]));
  const extra = (after) => hand.extras.filter((e) => afterEnd.has(e.type) === after)
    .map((e) => listed(fields[e.type], e.values));
  const out = [...extra(false), ...hand.done];
  if (hand.winners.length && !(hand.exhausted && !S.form.blood_battle)) out.push(currentWin());
  if (hand.exhausted) {
    const end = copy(hand.end);
    if (end.ready) {  // every seat still in the hand is listed: not ready unless marked so
      const won = wonSeats();
      end.ready = Object.fromEntries([0, 1, 2, 3].filter((s) => !won.includes(s))
        .map((s) => [s, end.ready[String(s)] ?? null]));
    }
    out.push(end);
  }
  return [...out, ...extra(true)];
}

// a seat's hand in a per-seat map of counters (chickens, 精 held) is listed only once something
// was counted: an untouched seat is no seat of that map
function listed(fields, values) {
  const out = copy(values);
  for (const f of fields) {
    if (f.kind !== "seat_map" || f.value.kind !== "object" || f.value.optional || !out[f.name]) continue;
    for (const [seat, entry] of Object.entries(out[f.name])) {
      const given = f.value.fields.some((g) => entry[g.name] != null && entry[g.name] !== g.default
        && entry[g.name] !== 0 && entry[g.name] !== false);
      if (!given) delete out[f.name][seat];
    }
  }
  return out;
}

// a blood battle: this win is kept, the next one is entered on a clean form
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
    let fields = S.form.winner;
    if (hand.mode === "tiles") {  // the tiles, and beside them only what they cannot show
      w.tiles = notation(hand.tiles[seat]);
      if (S.form.tiles.indicator && hand.indicator) w.indicator = hand.indicator;
      fields = storyFields();
    }
    for (const f of fields) {
      const v = hand.feats[seat][f.name];
      const empty = v && typeof v === "object" && !Object.keys(v).length;  // {} is a map's default
      if (fieldShown(f, hand) && v != null && v !== f.default && !empty) w[f.name] = v;
    }
    return w;
  });
  return event;
}

async function showPreview() {
  const { status, data } = await api("preview", { events: events() });
  if (status === 422 && data.incomplete && S.form.blood_battle && S.hand.winners.length) {
    anotherWin();  // a blood battle: this win is kept, the form waits for the next one
    problem(data.error, true);
    return;
  }
  if (status !== 200) { problem(data.error, !!data.incomplete); return; }
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
  if (status !== 200) { problem(data.error); return; }
  S.preview = null;
  S.hand = null;
  S.reading = null;
  S.screen = "table";
  window.scrollTo(0, 0);  // a new screen, from its top (as a tab opens it)
  note(T("Booked."));
  await refresh();
}

// -- settling up ---------------------------------------------------------------------------------

async function loadSettle() {
  const { status, data } = await api("settle");
  S.settle = status === 200 ? data : { error: data.error };
  if (S.screen === "settle") draw();
  const season = await api("season");  // the group's season under it, chart and all
  S.season = season.status === 200 ? season.data : null;
  if (S.screen === "settle") draw();
}

function settleScreen() {
  const s = S.settle;
  if (!s) return [h("p.hint", {}, T("Loading…"))];
  if (s.error) return [h("p.error", {}, s.error)];
  const row = (tr) => h("div.row.card", { "data-transfer": tr.payer + ">" + tr.payee },
    h("span", { style: "flex:1" }, tr.text),
    tr.may_confirm ? h("button.primary", { onclick: () => received(tr) }, T("Received")) : null);
  const season = S.season;
  return [h("div.card.chat", { id: "settle-html", html: s.html }),
    s.transfers.length ? h("h3", {}, T("Who pays whom")) : null, ...s.transfers.map(row),
    s.pending.length ? h("h3", {}, T("Pending: counts once the payee confirms")) : null, ...s.pending.map(row),
    season ? h("div.card.chat", { id: "season-html", html: season.html }) : null,
    season && season.chart ? h("img", { id: "season-chart", src: season.chart, alt: T("The season"),
      style: "width:100%" }) : null];
}

async function received(tr) {
  const body = tr.payment ? { payment: tr.payment } : { payer: tr.payer, payee: tr.payee, cents: tr.cents };
  const { status, data } = await api("received", body);
  if (status !== 200) { problem(data.error); return; }
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
    remember("lang", S.lang);
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
