// The table display: seats around the table, the deal live, the first player, counts, trick, calls.
"use strict";

let roundId = null;
let pub = null;
let refreshTimer = null;
const refereeCalls = [];

function $(id) { return document.getElementById(id); }

function seatBox(s) {
  let el = document.querySelector(`.seat-${s}`);
  if (!el) {
    el = document.createElement("div");
    el.className = `seat seat-${s}`;
    el.id = `seat-${s}`;
    $("table").appendChild(el);
  }
  return el;
}

function render() {
  if (!pub) return;
  const game = gameTitle(pub);
  const info = pub.info || {};
  $("round-label").textContent = `#${pub.id} · ${game[0]} ${game[1]}`;
  $("tracker-panel").classList.toggle("hidden", !info.call_tracker);  // the 记牌器 of a game with a called card
  renderGamePanel();
  $("phase").innerHTML = phaseText(pub.phase) + (pub.paused ? ' · <b>暂停 Paused</b>' : "");
  const table = pub.table || {};
  const lead = leadSeat();
  const n = pub.seats;
  $("table").dataset.seats = n;  // the CSS lays 3 seats out as a triangle, 4 as a square
  for (let s = 0; s < n; s++) {
    const el = seatBox(s);
    const count = pub.counts ? pub.counts[s] : pub.dealt_per_seat[s];
    const low = pub.low.includes(s);
    const badges = [];
    if (info.lead_moves) {  // the ♥4 holder and the seat that leads: one seat unless 对挑 or 趴 moved the lead
      if (lead === s) badges.push(pub.first_player === s ? "♥4 先出" : "先出 leads");
      else if (pub.first_player === s) badges.push("♥4");
    } else if (lead === s) badges.push("先出 first");
    if (pub.bots.includes(s)) badges.push("机器人 bot");
    if ((table.tiao || []).includes(s)) badges.push("挑");
    if (table.baomen && table.h4_holder === s) badges.push("爆闷");
    if ((table.lying_down || []).includes(s)) badges.push("趴 lying down");
    if ((table.spectators || []).includes(s)) badges.push("观战");
    if (table.partner === s && table.mode) badges.push("partner 搭档");
    const perSeat = pub.total / n;
    el.className = `seat seat-${s}` + (pub.turn === s ? " turn" : "") + (lead === s ? " first" : "");
    el.innerHTML = `<div>${seatName(s)}</div>
      <div class="count ${low ? "low" : ""}" data-count="${count}">${count}</div>
      <div class="en">${low ? (info.count_announce_events ? "报牌 cards left!" : "剩牌不多 cards left!") : "cards · 张"}</div>
      ${pub.phase === "dealing" ? `<div class="progress"><div style="width:${Math.min(100, 100 * pub.dealt_per_seat[s] / perSeat)}%"></div></div>` : ""}
      <div class="badges">${badges.map((b) => `<span>${esc(b)}</span>`).join("")}</div>`;
  }
  $("message").textContent = pub.message ? `${pub.message_zh || ""} ${pub.message}` : "";
  $("message").classList.toggle("hidden", !pub.message);
  const dealing = pub.phase === "dealing" || pub.phase === "interrupted";
  $("deal").classList.toggle("hidden", !dealing && pub.dealt >= pub.total);
  $("deal-count").textContent = `${pub.dealt} / ${pub.total}`;
  $("deal-bar").style.width = `${(100 * pub.dealt) / Math.max(1, pub.total)}%`;
  const fp = $("first-player");
  if (lead !== null && pub.phase !== "finished") {
    fp.innerHTML = firstPlayerHtml(lead);
    fp.classList.remove("hidden");
    fp.dataset.seat = lead;
  } else {
    fp.classList.add("hidden");
  }
  const undecided = pub.undecided || [];
  $("turn").innerHTML = undecided.length
    ? `等待声明 <span class="en">waiting for declarations:</span> ${undecided.map(seatName).join(" · ")}<span id="declare-left"></span>`
    : pub.turn !== null && pub.turn !== undefined ? `轮到 <span class="en">to act:</span> ${seatName(pub.turn)}` : "";
  countdown("declare-left", undecided.length && typeof pub.declare_left === "number" ? Date.now() + 1000 * pub.declare_left : null);
  const trick = pub.trick || [];
  $("trick").innerHTML = trick.map((t) => `<div>${actionText(t)}</div>`).join("");
  const called = pub.called;
  $("tracker").innerHTML = called
    ? `${cardHtml(called.card, "big")}<div>${seatName(called.seat)}<br><span class="zh">叫牌</span> <span class="en">called it</span></div>`
    : noCallText(table);
  for (const a of pub.actions) {
    if (!a.applied && !refereeCalls.some((c) => c.round === pub.id && c.index === a.index)) {
      const v = a.violations[0] || {};
      refereeCalls.unshift({ round: pub.id, index: a.index, seat: a.seat, action: a.action, rule: v.rule,
        message: v.message, message_zh: v.message_zh, target: a.target });
    }
  }
  renderCalls();
  const r = pub.result;
  $("result").innerHTML = r ? resultHtml(r) : "";
}

// The seat that leads the first trick. 红桃四: the engine's table.first_leader, the ♥4 holder as dealt
// unless a 对挑 (the duelist with the lowest heart) or the holder lying down (趴: the partner) moves the
// lead. Elsewhere the deal's word.
function leadSeat() {
  const fp = pub.first_player === undefined ? null : pub.first_player;
  const t = pub.table;
  if (!(pub.info || {}).lead_moves || !t || t.first_leader === null || t.first_leader === undefined) return fp;
  return t.first_leader;
}

function isDuel(t) { return (t.tiao || []).length === 2 && !t.baomen; }

// Each half of the banner stays whole: it breaks, if it must, at the comma, never before a lone 出.
function firstPlayerHtml(s) {
  const who = `<span class="nowrap">${ZH_NUM[s]}号先出</span>`;
  if (!(pub.info || {}).lead_moves) return `${who}<span class="en">Seat ${s + 1} plays first</span>`;
  const t = pub.table || {};
  const h4 = pub.first_player;
  if (s === h4 || h4 === null || h4 === undefined) {
    return `<span class="nowrap">红桃四在${ZH_NUM[s]}号位，</span>${who}<span class="en">Seat ${s + 1} holds ♥4 and plays first</span>`;
  }
  const seatFirst = `<span class="nowrap">${ZH_NUM[s]}号位先出</span>`;  // as the voice says it
  const why = isDuel(t) ? ["对挑，", "Duel (对挑)"]
    : (t.lying_down || []).includes(h4) ? [`${ZH_NUM[h4]}号位红桃四趴下，`, `Seat ${h4 + 1} (♥4) lies down`] : ["", ""];
  return `<span class="nowrap">${why[0]}</span>${seatFirst}<span class="en">${why[1] ? why[1] + ": " : ""}Seat ${s + 1} plays first</span>`;
}

// The 记牌器 when nothing is called: 红桃四 waits for the call, unless a 挑 or 爆闷 means there is none.
function noCallText(t) {
  if (!(pub.info || {}).call_tracker) return '<span class="en">—</span>';
  const none = t.baomen ? ["爆闷", "baomen"] : isDuel(t) ? ["对挑", "duel"] : (t.tiao || []).length === 1 ? ["单挑", "alone"] : null;
  return none
    ? `<span class="zh">不叫牌</span> <span class="en">no call (${none[0]} ${none[1]})</span>`
    : '<span class="zh">尚未叫牌</span> <span class="en">no call yet</span>';
}

// What each of the other games shows the whole table (all of it from the engine's public view):
// 升级's level, trump, dealer and points; 挖坑's digger, bid and the bottom, face up all hand;
// 拱猪's exposed cards and the scoring cards each seat has taken; 捉红A's declarations.
const SUIT_ZH = { S: "♠ 黑桃", H: "♥ 红桃", D: "♦ 方块", C: "♣ 梅花" };
const XUAN = { pending: ["待答复", "awaiting the answer"], xuan: ["宣成", "declared"], du_xuan: ["独宣", "declared alone"],
  refused: ["放弃", "refused"] };

function row(zh, en, value) {
  return `<div class="info-row"><span>${zh} <span class="en">${en}</span></span> <b>${value}</b></div>`;
}

function cardsOf(list) {
  return (list || []).map((c) => cardHtml(c, "small")).join("") || "—";
}

const GAME_PANELS = {
  shengji: (t, r) => [
    row("级", "level", esc(t.level)),
    row("主", "trump", t.no_trump ? "无主 no trump" : t.trump_suit ? SUIT_ZH[t.trump_suit] : "未定 not yet"),
    row("庄家", "dealer", seatName(t.dealer)),
    // in play the points taken in tricks; once the hand is over the verdict's, with 抠底 (the bottom's
    // points multiplied when the attackers win the last trick)
    r && r.attacker_points !== undefined
      ? row("抓分", "attackers' points", esc(r.attacker_points) + (r.bottom_multiplier
        ? ` <span class="en">(含抠底 incl. the bottom ${esc(r.bottom_points)} ×${esc(r.bottom_multiplier)})</span>` : ""))
      : row("抓分", "attackers' points", esc(t.attacker_points)),
  ],
  wakeng: (t) => [
    row("挖坑者", "digger", t.digger !== null && t.digger !== undefined ? seatName(t.digger) : "—"),
    row("叫分", "bid", t.bid ? esc(t.bid) : "—"),
    row("倍数", "multiplier", `×${esc(t.multiplier)}`),
    row("底牌", "bottom", cardsOf(t.bottom)),
  ],
  gongzhu: (t) => [
    row("亮牌", "exposed", (t.exposed || []).map((e) =>
      `${seatName(e.seat)} ${e.card ? cardHtml(e.card, "small") : cardHtml("?", "small")}`).join(" ") || "—"),
    ...(t.taken || []).map((cards, s) => row(`${seatName(s)} 收`, "took", cardsOf(cards.filter((c) =>
      c[0] === "H" || ["SQ", "DJ", "C10"].includes(c))))),
  ],
  zhuohonga: (t) => {
    const x = XUAN[t.xuan] || [t.xuan, t.xuan];
    const by = t.xuan_by !== null && t.xuan_by !== undefined ? ` · ${seatName(t.xuan_by)}` : "";
    return [
      row("宣红A", "red aces", t.xuan ? `${esc(x[0])} <span class="en">${esc(x[1])}</span>${by}` : "—"),
      row("反宣", "counter", (t.fan_xuan_by || []).map(seatName).join(" ") || "—"),
      row("倍数", "multiplier", `×${esc(t.multiplier)}`),
    ];
  },
};

function renderGamePanel() {
  const panel = GAME_PANELS[pub.game];
  const table = pub.table;
  $("game-panel").classList.toggle("hidden", !panel || !table);
  if (!panel || !table) return;
  const name = gameTitle(pub);
  $("game-panel-title").innerHTML = `${esc(name[0])} <span class="en">${esc(name[1])}</span>`;
  $("game-info").innerHTML = panel(table, pub.result).join("");
}

function resultHtml(r) {
  // 红桃四 names its mode (2 vs 2, 趴, 挑, …); the other games name themselves
  const rows = (r.scores || []).map((v, s) => `<div>${seatName(s)}: ${scoreHtml(v)}</div>`).join("");
  return `<h2>本局结束 <span class="en">Hand over</span> · ${modeText(r, pub.info)}</h2>
    <div class="winners">${winnersText(r)}</div>${rows}`;
}

// The referee's calls of the current hand, newest first; only whole entries are shown (the panel keeps
// its height), with a line saying how many older ones did not fit.
// A refused 趴 request names whom it asked: the table learns what the asker learnt (not one side).
function paAsk(c) {
  return c.action === "pa" && typeof c.target === "number"
    ? ` → ${seatName(c.target)} (请趴 <span class="en">asked to lie down</span>)` : "";
}

function renderCalls() {
  const box = $("calls");
  const calls = refereeCalls.filter((c) => pub && c.round === pub.id);
  box.innerHTML = calls.length
    ? calls.slice(0, 12).map((c) => `<div class="call">${seatName(c.seat)}${paAsk(c)} · <b>${esc(c.rule)}</b><br>${esc(c.message_zh)}<br><span class="en">${esc(c.message)}</span></div>`).join("")
    : '<span class="en">—</span>';
  const entries = [...box.querySelectorAll(".call")];
  let shown = entries.length;
  const note = () => {
    let more = box.querySelector(".more");
    if (!more) { more = document.createElement("div"); more.className = "more en"; box.appendChild(more); }
    more.textContent = `另有 ${calls.length - shown} 条更早 · ${calls.length - shown} earlier`;
  };
  if (calls.length > shown) note();
  while (shown > 1 && box.scrollHeight > box.clientHeight + 1) {
    entries[--shown].remove();
    note();
  }
}

function renderLedger(ledger) {
  $("ledger").innerHTML = `<tr><th>座位 Seat</th><th>筹码 Chips</th></tr>` + ledger.map((v, s) =>
    `<tr><td>${seatName(s)}</td><td class="${v > 0 ? "pos" : v < 0 ? "neg" : ""}">${v > 0 ? "+" : ""}${v}</td></tr>`).join("");
}

async function refresh() {
  refreshTimer = null;
  if (roundId === null) return;
  try {
    pub = await api(`/api/rounds/${roundId}`);
    render();
  } catch (e) { console.warn(e); }
}

function soon() { if (!refreshTimer) refreshTimer = setTimeout(refresh, 60); }

function onEvent(ev) {
  if (ev.type === "voice") { $("caption").innerHTML = `${esc(ev.text_zh)}<br><span class="en">${esc(ev.text)}</span>`; return; }
  if (ev.type === "estop") { $("estop").classList.remove("hidden"); soon(); return; }
  if (ev.type === "cleared") { $("estop").classList.add("hidden"); soon(); return; }
  if (ev.type === "finished" && ev.ledger) renderLedger(ev.ledger);
  if (ev.type === "round") {  // a new hand: the last hand's calls are not this one's
    roundId = ev.round; pub = null; refereeCalls.length = 0; renderCalls(); soon(); return;
  }
  if (ev.round !== roundId) return;
  if (ev.type === "deal" && pub) {
    pub.dealt = ev.dealt;
    if (ev.seat !== null && ev.seat !== undefined) pub.dealt_per_seat[ev.seat] += 1;
    render();
    return;
  }
  soon();
}

// On every (re)connect of the event stream: a round started before it was listening is not missed.
async function resync() {
  const health = await api("/api/health");
  $("estop").classList.toggle("hidden", !health.estop);
  renderLedger((await api("/api/ledger")).ledger);
  if (health.round) { roundId = health.round; await refresh(); }
}

subscribe(onEvent, resync);
resync();
