// The room page: tables' public live state (SSE), faults loud, ledgers, a past hand from the archive.
"use strict";
const $ = (id) => document.getElementById(id);
const tables = {};
const PHASE = { dealing: "发牌中 dealing", playing: "出牌中 playing", finished: "已结束 finished",
                void: "作废 void", interrupted: "中断 interrupted" };

async function api(path, opts) {
  const r = await fetch(path, opts);
  if (r.status === 401) { showLogin(); throw new Error("login"); }
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function showLogin() { $("login").classList.remove("hidden"); $("main").classList.add("hidden"); }

function text(s) { const d = document.createElement("div"); d.textContent = s; return d.innerHTML; }

function render() {
  const out = [];
  for (const name of Object.keys(tables).sort()) {
    const t = tables[name], st = t.state || {};
    const alarm = st.estop || (t.health && (t.health.estop || t.health.fault)) || (t.flags || []).length;
    const lines = [`<b>${text(name)}</b> ${t.online ? "在线 online" : "离线 offline"}`];
    if (st.round) lines.push(`第 ${st.round} 局 round ${st.round}: ${PHASE[st.phase] || text(st.phase || "")}`);
    if (st.phase === "dealing" && st.total) lines.push(`${st.dealt}/${st.total}`);
    if (st.estop) lines.push(`<span class="alarm-text">急停 E-STOP: ${text(String(st.estop))}</span>`);
    if (t.health && t.health.fault) lines.push(`<span class="alarm-text">故障 FAULT: ${text(JSON.stringify(t.health.fault))}</span>`);
    if (st.ledger) lines.push(`账 ledger: ${st.ledger.join(" / ")}`);
    for (const f of t.flags || []) lines.push(`<div class="flag">⚠ ${text(f.reason)}</div>`);
    out.push(`<div class="table${alarm ? " alarm" : ""}${t.online ? "" : " offline"}" data-table="${text(name)}">${lines.join("<br>")}</div>`);
  }
  $("tables").innerHTML = out.join("");
}

async function refresh() {
  const body = await api("/api/tables");
  $("room").textContent = body.room;
  for (const t of body.tables) tables[t.table] = t;
  render();
}

async function ledger() {
  const body = await api("/api/ledger");
  $("plot").src = "/api/ledger.svg?" + Date.now();
  $("ledger").innerHTML = "<tr><th>玩家 player</th><th>桌 table</th><th>日期 session</th><th>合计 total</th></tr>" +
    body.by_table_session.map((r) => `<tr><td>${text(r.player)}</td><td>${text(r.table)}</td><td>${r.session}</td><td>${r.total}</td></tr>`).join("");
}

function live() {
  const es = new EventSource("/api/events");
  es.onmessage = (m) => {
    const e = JSON.parse(m.data);
    const t = tables[e.table] || (tables[e.table] = { table: e.table, state: {}, flags: [], online: true });
    window.lastEvent = { ...e, seen: Date.now() / 1000 };
    if (e.type === "event") {
      const ev = e.event, st = t.state;
      st.last = ev; if (ev.round) st.round = ev.round;
      const phase = { round: "dealing", deal: "dealing", dealt: "playing", finished: "finished", void: "void", interrupted: "interrupted" }[ev.type];
      if (phase) st.phase = phase;
      if (ev.type === "deal") { st.dealt = ev.dealt; st.total = ev.total; }
      if (ev.type === "estop") st.estop = ev.reason || true;
      if (ev.type === "cleared" || ev.type === "resumed") st.estop = null;
      if (ev.type === "finished") { st.ledger = ev.ledger; ledger().catch(() => {}); }
    } else if (e.type === "health") t.health = e.health;
    else if (e.type === "flag") t.flags = [...(t.flags || []), { reason: e.reason }];
    else if (e.type === "online") t.online = e.online;
    render();
  };
}

async function start() {
  try { await refresh(); } catch (e) { return; }
  $("login").classList.add("hidden"); $("main").classList.remove("hidden");
  ledger().catch(() => {}); live(); setInterval(() => refresh().catch(() => {}), 5000);
}

$("login").onsubmit = async (ev) => {
  ev.preventDefault();
  try {
    await api("/api/login", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: $("name").value, password: $("password").value }) });
    start();
  } catch (e) { $("login-error").textContent = e.message; }
};

$("past").onsubmit = async (ev) => {
  ev.preventDefault();
  try {
    const r = await api(`/api/tables/${encodeURIComponent($("past-table").value)}/rounds/${encodeURIComponent($("past-round").value)}`);
    const rec = r.receipts.map((x) => `<li>receipt 凭据 row ${x.row_seq} (${x.kind}): ${x.matches === false ? "<b>不符 MISMATCH</b>" : "相符 matches"}${x.signed ? ", signed 已签名" : ""}</li>`).join("");
    $("past-out").innerHTML = `<ul>${rec}</ul><table class="rows"><tr><th>seq</th><th>kind</th><th>data</th><th>hash</th></tr>` +
      r.rows.map((x) => `<tr><td>${x.seq}</td><td>${text(x.kind)}</td><td>${text(JSON.stringify(x.data))}</td><td>${x.hash.slice(0, 12)}…</td></tr>`).join("") + "</table>";
  } catch (e) { $("past-out").textContent = e.message; }
};

start();
