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
  renderLedger(lastLedger);  // the ledger of this hand's game
  $("phase").innerHTML = phaseText(pub.phase) + (pub.paused ? ' · <b>暂停 Paused</b>' : "");
  const table = pub.table || {};
  const lead = leadSeat();
  const n = pub.seats;
  $("table").dataset.seats = n;  // the CSS lays 3 seats out as a triangle, 4 as a square
  // a 3-seat hand after a 4-seat one: the last hand's extra seat goes
  for (const el of document.querySelectorAll("#table .seat")) if (Number(el.id.slice(5)) >= n) el.remove();
  for (let s = 0; s < n; s++) {
    const el = seatBox(s);
    const count = pub.counts ? pub.counts[s] : pub.dealt_per_seat[s];
    const low = pub.low.includes(s);
    const badges = [];
    if (info.lead_moves) {  // the ♥4 holder and the seat that leads: one seat unless 对挑 or 趴 moved the lead
      if (lead === s) badges.push(pub.first_player === s ? "♥4 先出 leads" : "先出 leads");
      else if (pub.first_player === s) badges.push("♥4");
    } else if (lead === s) badges.push("先出 first");
    if (pub.bots.includes(s)) badges.push("机器人 bot");
    if ((table.tiao || []).includes(s)) badges.push("挑 alone");
    if (table.baomen && table.h4_holder === s) badges.push("爆闷 baomen");
    if ((table.lying_down || []).includes(s)) badges.push("趴 lying down");
    if ((table.spectators || []).includes(s)) badges.push("观战 sits out");
    if (table.partner === s && table.mode) badges.push("partner 搭档");
    const perSeat = pub.total / n;
    el.className = `seat seat-${s}` + (pub.turn === s ? " turn" : "") + (lead === s ? " first" : "");
    el.innerHTML = `<div>${seatName(s)}</div>
      <div class="count ${low ? "low" : ""}" data-count="${count}">${count}</div>
      <div class="en">${low ? `剩${count}张 · ${count} left!` : "张 · cards"}</div>
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
    ? `等待声明 <span class="en">waiting for declarations:</span> ${undecided.map((s) => `<span class="nowrap">${seatName(s)}</span>`).join(" · ")}<span id="declare-left"></span>`
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

// The game panel: rows the service builds from the fields of the game's public view (``panel``), each
// with its labels, a kind (text, seat, seats, cards, exposed) and a value. No game is named here.
function renderGamePanel() {
  const rows = pub.panel || [];
  $("game-panel").classList.toggle("hidden", !rows.length);
  if (!rows.length) return;
  const name = gameTitle(pub);
  $("game-panel-title").innerHTML = `${esc(name[0])} <span class="en">${esc(name[1])}</span>`;
  $("game-info").innerHTML = panelHtml(rows);
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
    ? calls.slice(0, 12).map((c) => `<div class="call">${seatName(c.seat)}${paAsk(c)} · <b>${esc(actionName(c)[0])}</b> <span class="en">${esc(actionName(c)[1])}</span><br>${esc(c.message_zh)}<br><span class="en">${esc(c.message)}</span></div>`).join("")
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

// The ledger of this session, per game (levels and points are not added up): the current game's totals,
// and each seat's running total after each hand as a plot.
let session = null;
const SEAT_COLOURS = ["#ffcf40", "#7ee08a", "#6cb8ff", "#ff8a8a", "#d59cff", "#ffffff"];

function plotSvg(history) {
  if (!history || history.length < 1) return "";
  const w = 300, h = 90, n = history.length, seats = history[0].length;
  const all = history.flat().concat([0]);
  const lo = Math.min(...all), hi = Math.max(...all), span = Math.max(1, hi - lo);
  const x = (i) => (n === 1 ? w / 2 : 6 + (i * (w - 12)) / (n - 1));
  const y = (v) => 6 + ((hi - v) * (h - 12)) / span;
  const lines = [...Array(seats).keys()].map((s) => {
    const pts = [[-1, 0], ...history.map((row, i) => [i, row[s]])].map(([i, v]) => `${i < 0 ? 2 : x(i)},${y(v)}`).join(" ");
    return `<polyline points="${pts}" fill="none" stroke="${SEAT_COLOURS[s % SEAT_COLOURS.length]}" stroke-width="2" data-seat="${s}"/>`;
  }).join("");
  return `<svg class="plot" viewBox="0 0 ${w} ${h}" role="img" aria-label="running totals 累计">` +
    `<line x1="0" x2="${w}" y1="${y(0)}" y2="${y(0)}" stroke="#456" stroke-dasharray="3 3"/>${lines}</svg>`;
}

async function loadSession() {
  session = await api("/api/session");
  renderLedger(lastLedger);
}

let lastLedger = [];
function renderLedger(ledger) {
  lastLedger = ledger;
  const game = pub && session ? session.games[pub.game] : null;
  if (game) ledger = game.totals;
  $("ledger-game").textContent = game ? `· ${game.title[0]} ${game.title[1]} · ${game.hands} 局 hands` : "";
  $("ledger-plot").innerHTML = game ? plotSvg(game.history) : "";
  $("ledger").innerHTML = `<tr><th>座位 Seat</th><th>筹码 Chips</th></tr>` + ledger.map((v, s) =>
    `<tr><td><i class="key" style="background:${SEAT_COLOURS[s % SEAT_COLOURS.length]}"></i>${seatName(s)}</td><td class="${v > 0 ? "pos" : v < 0 ? "neg" : ""}">${v > 0 ? "+" : ""}${v}</td></tr>`).join("");
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

function showReceipt(r) {
  $("receipt-panel").classList.toggle("hidden", !r);
  $("receipt").innerHTML = r ? receiptHtml(r) : "";
}

function showCaption(ev) { $("caption").innerHTML = `${esc(ev.text_zh)}<br><span class="en">${esc(ev.text)}</span>`; }

// The table camera: a play it did not apply (the seat is asked), or a picture it cannot use. Never a card.
function showTableCamera(ev) {
  const on = ev.state === "ask" || ev.state === "problem";
  $("tablecam").classList.toggle("hidden", !on);
  if (on) $("tablecam").innerHTML = `📷 ${esc(ev.message_zh)}<br><span class="en">${esc(ev.message)}</span>`;
}

function onEvent(ev) {
  if (ev.type === "voice") { showCaption(ev); return; }
  if (ev.type === "table_camera") { showTableCamera(ev); return; }
  if (ev.type === "names") { setNames(ev.names); renderLedger(lastLedger); render(); renderCalls(); return; }
  if (ev.type === "receipt") { if (ev.round === roundId) showReceipt(ev); return; }
  if (ev.type === "estop") { $("estop").classList.remove("hidden"); soon(); return; }
  if (ev.type === "cleared") { $("estop").classList.add("hidden"); soon(); return; }
  if (ev.type === "finished" && ev.ledger) { renderLedger(ev.ledger); loadSession(); }
  if (ev.type === "session") { renderLedger(ev.ledger); loadSession(); return; }
  if (ev.type === "round") {  // a new hand: the last hand's calls are not this one's
    roundId = ev.round; pub = null; refereeCalls.length = 0; renderCalls(); showReceipt(null); soon(); return;
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
  setNames((await api("/api/names")).names);
  renderLedger((await api("/api/ledger")).ledger);
  loadSession();
  const said = (await api("/api/announcements?limit=1")).announcements;  // after a reload too
  if (said.length) showCaption(said[said.length - 1]);
  if (health.round) { roundId = health.round; showReceipt(await latestReceipt(roundId)); await refresh(); }
}

subscribe(onEvent, resync);
resync();
