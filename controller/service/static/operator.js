// The operator's page: deals, e-stop, faults, seat tokens (QR), the journal and the dispute view.
"use strict";

function $(id) { return document.getElementById(id); }

const hash = new URLSearchParams(location.hash.slice(1));
if (hash.get("t")) { localStorage.setItem("hongsi-operator-token", hash.get("t")); history.replaceState(null, "", "/operator"); }
let token = localStorage.getItem("hongsi-operator-token") || "";
$("token").value = token;
let current = null;
let replayData = null;

function showMsg(html, kind = "ok") { const el = $("msg"); el.innerHTML = html; el.className = `msg ${kind}`; }
function fail(e) { showMsg(`${esc(e.zh || "")} <span class="en">${esc(e.status || "")} ${esc(e.message)}</span>`, "refused"); }

async function call(path, opts = {}) {
  try { return await api(path, { token, ...opts }); } catch (e) { fail(e); throw e; }
}

async function health() {
  const h = await api("/api/health");
  current = h.round;
  $("health").innerHTML = healthTable(h);
  if (current && !$("replay-round").value) $("replay-round").value = current;
}

// The health answer as a table a person reads at a glance; fields it does not know are shown as they come.
const HEALTH_ROWS = [
  ["status", "状态", "Status", (v) => (v === "ok" ? "✓ ok" : `⚠ ${v}`)],
  ["rig", "发牌机", "Rig", (v) => `${v.rig || ""} · ${v.state || ""}${v.waiting ? " · 等待操作 waiting for a person" : ""}`],
  ["estop", "急停", "E-stop", (v) => (v ? "⛔ 已按下 pressed" : "—")],
  ["fault", "故障", "Fault", (v) => v || "—"],
  ["round", "当前局", "Round", (v, h) => (v ? `#${v} · ${h.phase || ""}` : "—")],
  ["voice", "语音", "Voice", (v) => (v.device === "no output device" ? "⚠ 没有音频输出设备 no output device · 只在屏幕显示 shown on the display only"
    : `${v.speaks ? "播报 speaks" : "静音 silent"} · ${v.engine || ""}${v.device ? ` · ⚠ ${v.device}` : ""}`)],
  ["clients", "连接", "Clients", (v) => String(v)],
  ["table_camera", "桌面相机", "Table camera", (v) => (v.state === "ok"
    ? `✓ ok${v.ask ? ` · 等待${v.ask.seat + 1}号位确认 waiting for Seat ${v.ask.seat + 1} to confirm` : ""}`
    : `⚠ ${v.message_zh || ""} ${v.message || v.problem || ""}`)],
];

function healthTable(h) {
  const known = new Set(HEALTH_ROWS.map((r) => r[0]).concat(["phase"]));
  const rows = HEALTH_ROWS.filter(([k]) => k in h).map(([k, zh, en, show]) =>
    `<tr><th>${zh} <span class="en">${en}</span></th><td data-key="${k}">${esc(show(h[k], h))}</td></tr>`);
  for (const [k, v] of Object.entries(h)) {
    if (!known.has(k)) rows.push(`<tr><th>${esc(k)}</th><td data-key="${esc(k)}">${esc(JSON.stringify(v))}</td></tr>`);
  }
  return `<table class="health">${rows.join("")}</table>`;
}

function botSeats() {
  if ($("bots-auto").checked) return null;
  return [...document.querySelectorAll("#bots input:checked")].map((el) => Number(el.value));
}

$("bots").innerHTML = [0, 1, 2, 3].map((s) => `<label><input type="checkbox" value="${s}"> ${s + 1}</label>`).join(" ");
$("btn-save").onclick = async () => {
  token = $("token").value.trim();
  localStorage.setItem("hongsi-operator-token", token);
  try { const me = await api("/api/whoami", { token }); $("who").textContent = `✓ ${me.role}`; } catch (e) { fail(e); }
};
// the empty seats' bot style (careful | bold | greedy), one line each, and its time per move
let BOTS = null;
function showBotStyle() {
  const st = BOTS && BOTS.styles.find((x) => x.name === $("bot-style").value);
  $("bot-style-text").innerHTML = st ? `${esc(st.text_zh)} <span class="en">${esc(st.text)}</span>` : "";
}
async function loadBots() {
  BOTS = await api("/api/bots");
  $("bot-style").innerHTML = BOTS.styles.map((x) => `<option value="${esc(x.name)}">${esc(x.name)}</option>`).join("");
  $("bot-style").value = BOTS.bot;
  $("bot-ms").value = BOTS.budget_ms;
  showBotStyle();
}
async function saveBots() {
  try {
    BOTS = await call("/api/bots", { method: "PUT", body: { bot: $("bot-style").value, budget_ms: Number($("bot-ms").value) } });
    showBotStyle();
  } catch (e) { loadBots().catch(fail); }
}
$("bot-style").onchange = saveBots;
$("bot-ms").onchange = saveBots;
loadBots().catch(fail);
// each game's presets (house rules: 拱双猪 is gongzhu's shuangzhu), the default first
let GAMES = [];
function fillPresets() {
  const g = GAMES.find((x) => x.name === $("game").value);
  const presets = g ? [g.default_preset, ...g.presets.filter((p) => p !== g.default_preset)] : [];
  $("preset").innerHTML = presets.map((p) => `<option value="${esc(p)}">${esc(p)}</option>`).join("");
  showDeck();
}
function showDeck() {  // which deck goes into the shuffler for this game and preset
  const g = GAMES.find((x) => x.name === $("game").value);
  const d = g && g.decks ? g.decks[$("preset").value] : null;
  $("deck-needed").innerHTML = d ? `放入 ${esc(d.text_zh)}，${d.cards} 张 · load ${esc(d.text)}, ${d.cards} cards` : "";
}
// the table's own deck (enrolled with hongsi deck learn or vision enroll): the reader uses it from the next deal
async function loadDecks() {
  const d = await api("/api/decks");
  $("table-deck-row").hidden = !d.reads;  // a table without a camera reads no cards
  const names = d.current && !d.available.includes(d.current) ? [d.current, ...d.available] : d.available;
  $("table-deck").innerHTML = [`<option value="">模型（未登记牌）· the models alone</option>`]
    .concat(names.map((n) => `<option value="${esc(n)}">${esc(n)}</option>`)).join("");
  $("table-deck").value = d.current || "";
}
$("table-deck").onchange = async () => {
  const name = $("table-deck").value || null;
  try {
    await call("/api/deck", { method: "PUT", body: { name } });
    showMsg(name ? `读牌用 ${esc(name)} <span class="en">reads with deck ${esc(name)} from the next deal</span>`
      : `读牌用模型 <span class="en">reads with the models alone</span>`);
  } catch (e) { loadDecks().catch(fail); }
};
loadDecks().catch(fail);
$("game").onchange = fillPresets;
$("preset").onchange = showDeck;
api("/api/games").then((r) => { GAMES = r.games; fillPresets(); }).catch(fail);

// The next deal's first seat by the last hand's verdict (the first out draws first), preselected
async function nextFirstSeat() {
  const l = await api("/api/ledger");
  const s = l.next_first_seat;
  if (s === null || s === undefined) { $("first-seat-hint").textContent = ""; return; }
  $("first-seat").value = String(s);
  $("first-seat-hint").innerHTML = `↑ ${seatName(s)}：上局先出完者先抓 · the first out last hand draws first`;
}

$("btn-deal").onclick = async () => {
  const body = { game: $("game").value, first_seat: Number($("first-seat").value), fair_deal: $("fair").checked, bots: botSeats() };
  if ($("preset").value) body.preset = $("preset").value;
  const r = await call("/api/rounds", { method: "POST", body });
  showMsg(`第 ${r.id} 局开始发牌 <span class="en">Round ${r.id} is dealing</span>`);
  health();
};
$("btn-estop").onclick = async () => { await call("/api/estop", { method: "POST" }); showMsg("急停 <span class='en'>Emergency stop</span>", "refused"); health(); };
$("btn-clear").onclick = async () => { await call("/api/clear", { method: "POST" }); showMsg("已解除 <span class='en'>Cleared</span>"); health(); };
$("btn-resume").onclick = async () => { await call(`/api/rounds/${current}/resume`, { method: "POST" }); showMsg("继续发牌 <span class='en'>Resumed</span>"); health(); };
$("btn-void").onclick = async () => {
  // voiding throws a hand away for everyone: ask first (the table hears it when it is done)
  if (current === null || !confirm(`作废第 ${current} 局？全桌都会听到。\nVoid hand #${current}? The whole table is told.`)) return;
  await call(`/api/rounds/${current}/void`, { method: "POST" }); showMsg("已作废 <span class='en'>Voided</span>"); health(); };

$("btn-session").onclick = async () => {  // the ledgers start again from 0: ask first
  if (!confirm("开始新的一场？筹码清零。\nStart a new session? Every ledger starts again from 0.")) return;
  await call("/api/session", { method: "POST" }); showMsg("新的一场 <span class='en'>New session</span>"); health();
};

$("token-buttons").innerHTML = [0, 1, 2, 3].map((s) => `<button data-seat="${s}">${s + 1}号位 <span class="en">Seat ${s + 1}</span></button>`).join(" ");
for (const b of document.querySelectorAll("#token-buttons button")) {
  b.onclick = async () => {
    const t = await call("/api/tokens", { method: "POST", body: { seat: Number(b.dataset.seat) } });
    $("qr").innerHTML = `<div>${seatName(t.seat)}</div>${t.qr_svg}<div class="kv"><a href="${esc(t.url)}" target="_blank">${esc(t.url)}</a></div>`;
    tokens();
  };
}

// Seats holding tokens (made here or with `hongsi token --seat N`); a seat's tokens can be revoked.
async function tokens() {
  const t = await call("/api/tokens");
  const seats = Object.entries(t.seats);
  $("token-list").innerHTML = seats.length
    ? seats.map(([s, n]) => `<div>${seatName(Number(s))}: ${n} 个令牌 ${n === 1 ? "token" : "tokens"} <button data-revoke="${s}">撤销 Revoke</button></div>`).join("")
    : "没有座位令牌 · no seat tokens: bots take every seat";
  for (const b of document.querySelectorAll("#token-list button")) {
    b.onclick = async () => { await call(`/api/tokens/${b.dataset.revoke}`, { method: "DELETE" }); tokens(); };
  }
}

async function journal() {
  const j = await call("/api/journal?limit=150");
  $("journal").innerHTML = `<div>${j.verified ? "✓ 哈希链完好 <span class='en'>hash chain verified</span>" : "✗ <b>chain broken</b>"}</div>` +
    j.rows.reverse().map((r) => `<div>#${r.seq} r${r.round} <b>${esc(r.kind)}</b> ${esc(JSON.stringify(r.data).slice(0, 180))}</div>`).join("");
}
$("btn-journal").onclick = journal;

async function cropUrl(digest) {
  const res = await fetch(`/api/images/${digest}`, { headers: { Authorization: "Bearer " + token } });
  if (!res.ok) return null;
  return URL.createObjectURL(await res.blob());
}

function showStep(i) {
  if (!replayData) return;
  const st = replayData.steps[i];
  $("step-label").textContent = replayData.steps.length ? `${i + 1} / ${replayData.steps.length}` : "0 / 0";
  if (!st) { $("replay").innerHTML = esc(replayData.error || "no events"); return; }
  const v = st.verdict || {};
  $("replay").innerHTML = `<div>${actionText(st.event)} ${st.applied ? "✓" : "<b class='neg'>✗ refused</b>"}</div>` +
    st.violations.map((x) => `<div class="call">${esc(x.rule)} (${esc(x.severity)}): ${esc(x.message_zh)} <span class="en">${esc(x.message)}</span></div>`).join("") +
    `<div>${verdictLine(v)}</div>` +
    st.hands.map((h, s) => `<div>${seatName(s)} ${sortHand(h, GAMES.find((g) => g.name === replayData.game)).map((c) => cardHtml(c, "small")).join("")}</div>`).join("") +
    (st.table_camera ? `<div id="table-shot">桌面相机 <span class="en">table camera (${esc(st.table_camera.verdict)})</span><br></div>` : "");
  if (st.table_camera) tableShots(st.table_camera).catch(console.warn);
}

// The table camera's picture of a play and the crops of the indices it read (the journal's images).
async function tableShots(tc) {
  for (const [digest, h] of [[tc.frame, 180], ...tc.crops.map((c) => [c, 48])]) {
    const url = digest && await cropUrl(digest);
    if (url && $("table-shot")) $("table-shot").insertAdjacentHTML("beforeend", `<img src="${url}" height="${h}" alt="">`);
  }
}

// A step's verdict with people's seat numbers (一号位 Seat 1): the sides, the partner, the scores.
function verdictLine(v) {
  const seat = (s) => (s === null || s === undefined ? "—" : seatName(s));
  const teams = (v.teams || []).map((t) => t.map(seatName).join(" + ")).join(" <b>vs</b> ") || "—";
  const scores = (v.scores || []).map((n, s) => `${seatName(s)} ${scoreHtml(n)}`).join(" · ") || "—";
  return `模式 <span class="en">mode</span> <b>${v.mode ? modeText(v) : "—"}</b> · 队 <span class="en">teams</span> ${teams}` +
    ` · 搭档 <span class="en">partner</span> ${seat(v.partner)} · ${v.finished ? "已结束 <span class='en'>finished</span>" : "进行中 <span class='en'>in play</span>"}` +
    `<br>得分 <span class="en">scores</span> ${scores}`;
}
$("step").oninput = () => showStep(Number($("step").value));
$("btn-replay").onclick = async () => {
  replayData = await call(`/api/rounds/${Number($("replay-round").value)}/replay`);
  $("step").max = Math.max(0, replayData.steps.length - 1);
  $("step").value = 0;
  showStep(0);
  const crops = [];
  for (const c of replayData.cards.slice(0, 120)) {
    const url = c.image ? await cropUrl(c.image) : null;
    crops.push(`<span title="#${c.index} → ${esc(c.seat_label_zh || "")} ${esc(c.seat_label || "")} (${c.confidence})">${url ? `<img src="${url}" alt="${esc(c.label)}">` : ""}${cardHtml(c.label || "?", "small")}</span>`);
  }
  $("crops").innerHTML = crops.join("") || '<span class="en">no camera reads for this round (software deal)</span>';
};
// the dispute report of a finished hand: one page to print or keep (fetched with the operator's token)
// The window opens at the click: a browser lets a page open one only within seconds of a click, and on a
// busy Pi the report may take longer than that to come (the popup was blocked, and nothing opened)
$("btn-report").onclick = async () => {
  const win = window.open("", "_blank");
  if (win) win.opener = null;  // the report needs nothing of this page
  try {
    const res = await fetch(`/api/rounds/${Number($("replay-round").value)}/report`, { headers: { Authorization: "Bearer " + token } });
    if (res.ok) {
      const url = URL.createObjectURL(await res.blob());
      if (win) win.location.href = url;
      else $("replay").innerHTML = `<a href="${url}" target="_blank">报告 report</a>`;
      return;
    }
    let detail = `${res.status} ${res.statusText}`;  // an answer not from the service (a proxy's page)
    try { detail = (await res.json()).detail || detail; } catch (e) { /* keep the status */ }
    $("replay").textContent = detail;
  } catch (e) {
    $("replay").textContent = `报告取不到 the report could not be fetched: ${e.message}`;
  }
  if (win) win.close();
};

// A paused deal: the table hears only that the operator must act; what to do (which cards, which seats)
// is in the journal's pause row, which only the operator reads. Show it, whole.
async function pauseDetail(round) {
  const j = await call(`/api/journal?round=${round}&limit=50`);
  const row = j.rows.reverse().find((r) => r.kind === "pause" || r.kind === "resume_after_pause");
  if (row && row.kind === "pause") showMsg(`⚠ ${esc(row.data.message_zh || "")} <span class="en">${esc(row.data.message || "")}</span>`, "refused");
}

// Opened (or reloaded) while the current deal waits for the operator: show what it waits for.
async function currentPause() {
  if (!token) return;
  const list = await api("/api/rounds");
  const cur = list.rounds.find((r) => r.id === list.current);
  if (cur && cur.phase === "interrupted") await pauseDetail(cur.id);
}

subscribe((ev) => {
  if (ev.type !== "deal" && ev.type !== "voice") health();
  if (ev.type === "table_camera" && (ev.state === "ask" || ev.state === "problem"))
    showMsg(`📷 ${esc(ev.message_zh)} <span class="en">${esc(ev.message)}</span>`, "refused");
  if (ev.type === "finished") nextFirstSeat().catch(console.warn);
  if (ev.type === "deal_status" && ev.stage === "paused" && token) pauseDetail(ev.round).catch(console.warn);
}, () => Promise.all([health(), nextFirstSeat(), currentPause()]));  // and on (re)connect
health();
nextFirstSeat().catch(console.warn);
if (token) { journal(); tokens(); }
