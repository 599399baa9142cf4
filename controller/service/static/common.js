// Shared helpers of the table pages: API calls, cards, seat names (seats are 0-based in the API,
// 1-based for people: seat 0 is "Seat 1 / 一号位").
"use strict";

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
const ZH_NUM = ["一", "二", "三", "四", "五", "六", "七", "八"];
const RANK_ORDER = ["4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "3"];

// Players' names by seat ("0": "小李"), set from each seat's page (GET /api/names, the ``names`` event)
const NAMES = {};
function setNames(names) {
  for (const k of Object.keys(NAMES)) delete NAMES[k];
  Object.assign(NAMES, names || {});
}

function seatName(s) {
  const who = NAMES[s] ? ` <b class="player">${esc(NAMES[s])}</b>` : "";
  return `<span class="zh">${ZH_NUM[s] || s + 1}号位</span> <span class="en">Seat ${s + 1}</span>${who}`;
}

function cardParts(c) {
  if (c === "BJ") return { suit: "", rank: "小王", red: false };
  if (c === "RJ") return { suit: "", rank: "大王", red: true };
  const suit = c[0], rank = c.slice(1);
  return { suit: SUIT[suit] || suit, rank, red: suit === "H" || suit === "D" };
}

function cardHtml(c, extra = "") {
  if (c === "?") return `<span class="card back ${extra}" title="face down · 暗牌"></span>`;  // a card nobody may see yet
  const p = cardParts(c);
  return `<span class="card ${p.red ? "red" : "black"} ${extra}" data-card="${c}">` +
    `<span class="rank">${p.rank}</span><span class="suit">${p.suit}</span></span>`;
}

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
}

async function api(path, { method = "GET", token = null, body = undefined } = {}) {
  const headers = {};
  if (token) headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.detail) || res.statusText);
    err.status = res.status;
    err.zh = data && data.detail_zh;
    throw err;
  }
  return data;
}

const PHASE = {
  dealing: ["发牌中", "Dealing"], interrupted: ["发牌中断", "Deal interrupted"], playing: ["出牌中", "Playing"],
  finished: ["本局结束", "Hand over"], void: ["本局作废", "Voided"],
};
const ACTION = {
  play: ["出牌", "plays"], pass: ["不要", "passes"], tiao: ["挑", "declares 挑 (alone)"],
  baomen: ["爆闷", "declares 爆闷"], call: ["叫牌", "calls"], pa: ["请趴", "asks to lie down"],
  pa_accept: ["同意趴", "lies down"], pa_refuse: ["拒绝趴", "refuses"], announce: ["报牌", "announces"],
  bury: ["埋底", "buries"], declare: ["亮主", "declares trump"], take_bottom: ["拿底", "takes the bottom"],
  xuan: ["宣红A", "declares the red aces"], xuan_consent: ["同意宣", "agrees to the declaration"],
  xuan_refuse: ["放弃", "refuses the declaration"], fan_xuan: ["反宣", "counter-declares"], expose: ["亮牌", "exposes"],
};
// actions whose name depends on one of their fields (挖坑's blind dig and bid)
const ACTION_OF = {
  black_dig: (a) => (a.dig ? ["黑挖", "digs blind"] : ["不黑挖", "declines the blind dig"]),
  bid: (a) => (a.value ? [`叫${a.value}分`, `bids ${a.value}`] : ["不叫", "does not bid"]),
};
// fields an action's name already says, or that only the referee needs (升级's declaration time)
const NAMED_FIELDS = new Set(["seat", "action", "cards", "dig", "value", "dealt"]);

function actionName(a) {
  return ACTION_OF[a.action] ? ACTION_OF[a.action](a) : (ACTION[a.action] || [a.action, a.action]);
}

function actionButton(a) {
  const t = actionName(a);
  const rest = Object.entries(a).filter(([k]) => !NAMED_FIELDS.has(k)).map(([, v]) => esc(v));
  return `${esc(t[0])} <span class="en">${esc(t[1])}</span> ${(a.cards || []).map((c) => cardHtml(c, "small")).join("")} ${rest.join(" ")}`;
}
// A game's traits come with every view (``info``, the engine's GameInfo): the pages name no game.
function gameTitle(x) {
  const info = (x && x.info) || {};
  return info.name_zh ? [info.name_zh, info.name_en] : [(x && x.game) || "", (x && x.game) || ""];
}
const MODE = {
  normal: ["普通二打二", "2 vs 2"], pa: ["趴", "Pa"], dui_pa: ["对趴", "Double pa"], anjiao: ["暗叫", "Secret call"],
  dantiao: ["单挑", "Alone"], duitiao: ["对挑", "Duel"], baomen: ["爆闷", "Baomen"],
};

function phaseText(p) {
  const t = PHASE[p] || [p, p];
  return `<span class="zh">${t[0]}</span> <span class="en">${t[1]}</span>`;
}

function actionText(a) {
  const t = actionName(a);
  let what = "";
  if (a.cards) what = a.cards.map((c) => cardHtml(c, "small")).join("");
  if (a.card) what = cardHtml(a.card, "small");
  if (a.target !== undefined && a.target !== null) what = seatName(a.target);
  if (a.count !== undefined && a.count !== null) what = `${a.count}`;
  return `${seatName(a.seat)} <b>${t[0]}</b> <span class="en">${t[1]}</span> ${what}`;
}

// A seat's name as plain text, where no markup goes (a drop-down's options): 二号位 Seat 2
function seatLabel(s) {
  return `${ZH_NUM[s] || s + 1}号位 Seat ${s + 1}${NAMES[s] ? " " + NAMES[s] : ""}`;
}

// Several seats, in seat order: 二号位 Seat 2、三号位 Seat 3
function seatList(seats) {
  return [...(seats || [])].sort((a, b) => a - b).map((s) => `<span class="nowrap">${seatName(s)}</span>`).join("、") || "—";
}

// Cards low to high as players hold them. The climbing games (红桃四, 挖坑, 捉红A) by rank, 4 lowest and
// 3 highest, jokers last; the trick-taking ones (拱猪, 升级) by suit (♠ ♥ ♦ ♣), 2 to A within a suit, jokers last.
const NATURAL_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const JOKER_ORDER = ["BJ", "RJ"];

function rankIndex(c, order) {
  return JOKER_ORDER.includes(c) ? order.length + JOKER_ORDER.indexOf(c) : order.indexOf(c.slice(1));
}

function sortCards(cards) {
  return [...cards].sort((a, b) => rankIndex(a, RANK_ORDER) - rankIndex(b, RANK_ORDER) || a.localeCompare(b));
}

function sortHand(cards, info) {
  if (!(info && info.trick_taking)) return sortCards(cards);
  const suit = (c) => (JOKER_ORDER.includes(c) ? 4 : "SHDC".indexOf(c[0]));
  return [...cards].sort((a, b) => suit(a) - suit(b) || rankIndex(a, NATURAL_ORDER) - rankIndex(b, NATURAL_ORDER));
}

// 红桃四's verdict for people: the mode, a failed 爆闷 said so (and who stopped it), and the winners.
function baomenFailed(r) {
  return r.mode === "baomen" && r.h4_holder !== null && r.h4_holder !== undefined &&
    !(r.winners || []).includes(r.h4_holder);
}

// ``info``: the game's traits (from the view the verdict came with): a game without modes names itself
function modeText(r, info) {
  const mode = MODE[r.mode] || (info && info.name_zh ? [info.name_zh, info.name_en] : [r.mode || r.game || "", ""]);
  return `${esc(mode[0])} <span class="en">${esc(mode[1])}</span>${r.multiplier > 1 ? ` ×${esc(r.multiplier)}` : ""}`;
}

function winnersText(r) {
  let out = `胜 <span class="en">winners:</span> ${seatList(r.winners)}`;
  if (baomenFailed(r)) {
    const by = (r.first_out === null || r.first_out === undefined) && r.next_first_seat !== null && r.next_first_seat !== undefined
      ? ` · 拦截 <span class="en">stopped by</span> ${seatName(r.next_first_seat)}` : "";
    out = `<b class="neg">爆闷失败</b> <span class="en">the 爆闷 failed</span>${by}<br>${out}`;
  }
  return out;
}

function scoreHtml(v) {
  return `<b class="${v > 0 ? "pos" : v < 0 ? "neg" : ""}">${v > 0 ? "+" : ""}${esc(v)}</b>`;
}

// A live-event subscription that re-opens itself; handler(event) for every public event, and
// onOpen() each time the stream (re)connects, to fetch what happened while it was not listening.
function subscribe(handler, onOpen) {
  const es = new EventSource("/api/events");
  es.onmessage = (m) => { try { handler(JSON.parse(m.data)); } catch (e) { console.error(e); } };
  if (onOpen) es.onopen = () => { Promise.resolve(onOpen()).catch((e) => console.warn(e)); };
  return es;
}

// A countdown shown in element `id` until `untilMs` (Date.now() ms; null: nothing), refreshed twice a second.
const countdowns = {};
function countdown(id, untilMs) {
  countdowns[id] = untilMs;
  const tick = () => {
    const el = document.getElementById(id);
    const until = countdowns[id];
    if (!el) return;
    const left = until === null || until === undefined ? null : Math.max(0, Math.ceil((until - Date.now()) / 1000));
    el.textContent = left === null ? "" : ` 还剩 ${left} 秒 · ${left} s left`;
  };
  tick();
  if (!countdown.timer) countdown.timer = setInterval(() => Object.keys(countdowns).forEach((k) => countdown(k, countdowns[k])), 500);
}

// A journal receipt for people: its short form to read out, and a QR code of the whole hash to keep.
const RECEIPT_AT = { deal_end: ["发牌完毕", "the deal"], service_dealt: ["发牌完毕", "the deal"],
  reveal: ["公开种子", "the seeds revealed"], round_end: ["本局结束", "the hand"] };
function receiptHtml(r) {
  const at = RECEIPT_AT[r.at] || [r.at || "", r.at || ""];
  return `<img class="receipt-qr" alt="QR" src="/api/receipts/${esc(r.receipt)}/qr.svg">` +
    `<div><div class="receipt-short" data-receipt="${esc(r.receipt)}">${esc(r.short)}</div>` +
    `<div>#${esc(r.round)} · ${esc(at[0])} <span class="en">${esc(at[1])}</span></div>` +
    `<div class="en">记下此码可核对记录 · keep this code to check the journal</div></div>`;
}

// The latest receipt of round ``rid`` (null: none yet).
async function latestReceipt(rid) {
  const found = (await api(`/api/receipts?round=${rid}&limit=1`)).receipts || [];
  return found.length ? found[found.length - 1] : null;
}

// The game panel: rows the service builds from the fields of the game's public view, each with its
// labels, a kind (text, seat, seats, cards, exposed) and a value. No page names a game.
function row(zh, en, value) {
  return `<div class="info-row"><span>${esc(zh)} <span class="en">${esc(en)}</span></span> <b>${value}</b></div>`;
}

function cardsOf(list) {
  return (list || []).map((c) => cardHtml(c, "small")).join("") || "—";
}

const PANEL_KINDS = {
  text: (v) => esc(v),
  seat: (v) => (v === null || v === undefined ? "—" : seatName(v)),
  seats: (v) => (v || []).map(seatName).join(" ") || "—",
  cards: cardsOf,
  exposed: (v) => (v || []).map((e) => `${seatName(e.seat)} ${cardHtml(e.card || "?", "small")}`).join(" ") || "—",
};

function panelHtml(rows) {
  return (rows || []).map((r) => row(r.zh, r.en, (PANEL_KINDS[r.kind] || PANEL_KINDS.text)(r.value))).join("");
}
