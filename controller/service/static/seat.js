// A player's phone: their own hand (behind the seat token), tap to play, declarations, referee's answer.
"use strict";

function $(id) { return document.getElementById(id); }

const params = new URLSearchParams(location.hash.slice(1));
if (params.get("t")) { sessionStorage.setItem("hongsi-seat-token", params.get("t")); history.replaceState(null, "", "/seat"); }
const token = sessionStorage.getItem("hongsi-seat-token");
let seat = null;
let roundId = null;
let view = null;
let selected = new Map();  // card -> how many of its copies are chosen (two-deck games hold pairs of one card)
let timer = null;
let shared = null;  // the commitment of the deal this page last added its random share to

function showMsg(html, kind) {
  const el = $("msg");
  el.innerHTML = html;
  el.className = `msg ${kind}`;
}

function showError(e) {  // what the service said, in both languages
  showMsg(`${esc(e.zh || "")} <span class="en">${esc(e.message)}</span>`, "refused");
}

// The game's rules in brief (from the service: the rank order and what its words mean)
function renderHelp(help) {
  $("help").classList.toggle("hidden", !help);
  if (!help || $("help").dataset.game === view.game) return;
  $("help").dataset.game = view.game;
  const name = gameTitle(view);
  $("help-body").innerHTML = `<div><b>${esc(name[0])}</b> <span class="en">${esc(name[1])}</span></div>` +
    `<div>大小 <span class="en">rank order, low to high:</span> ${help.ranks.map(esc).join(" < ")}</div>` +
    help.terms.map((t) => `<div><b>${esc(t.term)}</b> ${esc(t.zh)}<br><span class="en">${esc(t.en)}</span></div>`).join("");
}

let lastPub = null, speakUntil = 0;  // the table's public state as last drawn; when its declaring window ends
function render(pub) {
  if (pub) {
    lastPub = pub;
    speakUntil = typeof pub.declare_left === "number" ? Date.now() + 1000 * pub.declare_left : 0;
  }
  $("who").innerHTML = `${seatName(seat)}`;
  if (!view) return;
  renderHelp(view.help);
  const myTurn = view.turn === seat;
  $("status").innerHTML = `#${view.id} · ${phaseText(view.phase)}${view.paused ? " · <b>暂停 Paused</b>" : ""}` +
    (view.turn !== null && view.turn !== undefined ? ` · ${myTurn ? "<b>轮到你 Your turn</b>" : "轮到 to act: " + seatName(view.turn)}` : "");
  if (pub) {
    const called = pub.called ? `记牌器 <span class="en">called</span> ${cardHtml(pub.called.card, "small")} (${seatName(pub.called.seat)})` : "";
    const counts = (pub.counts || []).map((n, s) => `${seatName(s)} <b class="${pub.low.includes(s) ? "neg" : ""}">${n}</b>`).join(" · ");
    const first = pub.first_words && pub.phase === "playing"  // "♥4 is at Seat N": who plays first, and why
      ? `<div class="first">${esc(pub.first_words[0])} <span class="en">${esc(pub.first_words[1])}</span></div>` : "";
    $("table-info").innerHTML = `${first}<div>${called}</div><div class="en">${counts}</div>` +
      (pub.panel && pub.panel.length ? `<div class="game-info">${panelHtml(pub.panel)}</div>` : "");
    $("trick").innerHTML = (pub.trick || []).map((t) => `<div>${actionText(t)}</div>`).join("");
  }
  const hand = view.hand || [];
  const held = {};
  for (const c of hand) held[c] = (held[c] || 0) + 1;
  selected = new Map([...selected].map(([c, n]) => [c, Math.min(n, held[c] || 0)]).filter(([, n]) => n > 0));
  const shown = {};
  $("hand").innerHTML = hand.map((c) => {
    shown[c] = (shown[c] || 0) + 1;
    return cardHtml(c, shown[c] <= (selected.get(c) || 0) ? "selected" : "");
  }).join("");
  for (const el of document.querySelectorAll("#hand .card")) {
    el.addEventListener("click", () => {
      const c = el.dataset.card;
      const n = (selected.get(c) || 0) + (el.classList.contains("selected") ? -1 : 1);
      if (n > 0) selected.set(c, n); else selected.delete(c);
      el.classList.toggle("selected");
    });
  }
  const legal = view.legal || [];
  const kinds = new Set(legal.map((a) => a.action));
  const info = view.info || {};
  const talk = new Set(info.talk || []);  // declarations shown before they are due (红桃四's 挑, 爆闷, 趴)
  const talks = talk.size > 0;
  const t = talks && view.view ? view.view : {};  // the engine's view for this seat
  const over = view.phase === "finished" || view.phase === "void" || !!t.finished;
  const lying = (t.lying_down || []).includes(seat);
  const out = over || lying || (t.spectators || []).includes(seat);  // this seat plays no more this hand
  // 红桃四's declarations and talk are shown (dimmed until due) before the first play, while they may
  // still come; once play has started, and after the hand, a control is shown only when it is legal.
  // Elsewhere a control appears only when the engine lists it (Pass: 挖坑 and 捉红A pass, 升级 and 拱猪 never do)
  const talking = talks && !out && (t.phase === "declare" || t.phase === "talk");
  const show = (id, on) => $(id).classList.toggle("hidden", !on);
  show("talk", talks);
  show("btn-tiao", talk.has("tiao") && (kinds.has("tiao") || talking));
  show("btn-baomen", talk.has("baomen") && (kinds.has("baomen") || talking));
  show("call-box", kinds.has("call"));
  show("pa-box", kinds.has("pa") || (talk.has("pa") && talking));
  show("btn-pa-accept", kinds.has("pa_accept"));
  show("btn-pa-refuse", kinds.has("pa_refuse"));
  show("btn-play", !out || kinds.has("play"));
  show("btn-pass", kinds.has("pass") || (info.passes && !out));
  const mark = (id, kind) => $(id).classList.toggle("legal", kinds.has(kind));
  mark("btn-play", "play"); mark("btn-pass", "pass"); mark("btn-tiao", "tiao"); mark("btn-baomen", "baomen");
  mark("btn-call", "call"); mark("btn-pa", "pa"); mark("btn-pa-accept", "pa_accept"); mark("btn-pa-refuse", "pa_refuse");
  // 升级's dealer buries the chosen cards (any number at a time, 8 in all): shown only when it is due
  mark("btn-bury", "bury"); $("btn-bury").classList.toggle("hidden", !kinds.has("bury"));
  // before the first play the bots wait for everyone to declare or say they will not
  $("btn-ready").classList.toggle("hidden", !view.undecided);
  countdown("ready-left", view.undecided && typeof view.declare_left === "number" ? Date.now() + 1000 * view.declare_left : null);
  // the call: a card of one's own is a 暗叫 (alone, ×2), which the list says
  const calls = legal.filter((a) => a.action === "call").map((a) => a.card);
  keepChoice("call-card", calls.map((c) => {
    const name = cardParts(c).suit + cardParts(c).rank;
    return `<option value="${c}">${hand.includes(c) ? `${name} (暗叫 · your own card: you play alone)` : name}</option>`;
  }).join(""));
  // the other games' own actions (bids, exposes, …): one button for each legal one
  const known = new Set(["play", "pass", "tiao", "baomen", "call", "pa", "pa_accept", "pa_refuse", "announce", "bury"]);
  const others = legal.filter((a) => !known.has(a.action)).slice(0, 24);
  $("other").innerHTML = others.map((a, i) =>
    `<button class="legal" data-i="${i}" data-action="${esc(a.action)}">${actionButton(a)}</button>`).join("");
  for (const b of document.querySelectorAll("#other button")) {
    b.onclick = () => { const { seat: _s, ...rest } = others[Number(b.dataset.i)]; act(rest); };
  }
  // 趴's targets in seat order, whatever the engine lists first: the first one picks out nobody
  const targets = legal.filter((a) => a.action === "pa").map((a) => a.target);
  keepChoice("pa-target", [...new Set(targets.length ? targets : [...Array(pub ? pub.seats : 4).keys()].filter((s) => s !== seat))]
    .sort((a, b) => a - b).map((s) => `<option value="${s}">${esc(seatLabel(s))}</option>`).join(""));
  $("hint").classList.toggle("hidden", out && !kinds.has("play"));
  renderNotice(t, kinds, pub, lying);
}

// A drop-down refilled on every refresh keeps the player's choice while it is still offered.
function keepChoice(id, options) {
  const el = $(id);
  const keep = el.value;
  el.innerHTML = options;
  if ([...el.options].some((o) => o.value === keep)) el.value = keep;
}

// What this seat must know now, in words: a 趴 asked of it, that it lies down or sits out, that it must
// call, and at the end of the hand the result and its own score.
function renderNotice(t, kinds, pub, lying) {
  const lines = [];
  if ((view.info || {}).talk && view.info.talk.includes("pa")) {
    for (const r of t.pa_requests || []) {
      if (r.target === seat) {
        lines.push(`<div class="ask">${ZH_NUM[r.seat]}号位请你趴下 <span class="en">Seat ${r.seat + 1} asks you to lie down</span></div>`);
      } else if (r.seat === seat) {
        lines.push(`<div>你已请${ZH_NUM[r.target]}号位趴下，等待回答 <span class="en">you asked Seat ${r.target + 1} to lie down: waiting for the answer</span></div>`);
      }
    }
    if (kinds.has("call")) {
      lines.push('<div class="ask">请叫牌 <span class="en">call a card</span></div>' +
        '<div class="en">4–10，不能叫♥4；叫自己的牌为暗叫（一打三，×2） · a card of your own is 暗叫: you play alone, ×2</div>');
    }
    if (lying && !t.finished) lines.push('<div class="ask">你已趴下 <span class="en">you are lying down: your partner plays for you both</span></div>');
    else if ((t.spectators || []).includes(seat) && !t.finished) {
      lines.push('<div>对挑：你本局观战 <span class="en">duel (对挑): you sit this hand out</span></div>');
    }
  }
  const r = pub && pub.result ? pub.result : t.finished ? t : null;
  if (r && view.phase === "finished") {
    const mine = (r.scores || [])[seat];
    const won = (r.winners || []).includes(seat);
    lines.push(`<div class="ask">本局结束 <span class="en">Hand over</span> · ${modeText(r, view.info)}</div><div>${winnersText(r)}</div>` +
      (mine !== undefined && mine !== null
        ? `<div>你 <span class="en">you:</span> ${scoreHtml(mine)} ${won ? "胜 <span class='en'>won</span>" : "负 <span class='en'>lost</span>"}</div>` : ""));
  }
  $("notice").innerHTML = lines.join("");
  $("notice").classList.toggle("hidden", !lines.length);
}

// The table camera could not apply this seat's play: confirm its reading, or tap the cards played.
async function tableAsk() {
  const got = await api(`/api/rounds/${roundId}/seats/${seat}/table_camera`, { token });
  const ask = got.ask;
  if (!ask) { $("msg").className = "msg hidden"; return; }
  const cards = ask.cards ? ask.cards.map(cardHtml).join(" ") : "";
  showMsg(`📷 ${esc(ask.message_zh)}<br><span class="en">${esc(ask.message)}</span>` +
          (cards ? `<br>${cards} <button id="btn-table-confirm">确认 Confirm</button>` : ""), "refused");
  if (cards) $("btn-table-confirm").onclick = async () => {
    try { await api(`/api/rounds/${roundId}/seats/${seat}/table_camera/confirm`, { token, method: "POST" }); $("msg").className = "msg hidden"; }
    catch (e) { showError(e); }
  };
}

function showReceipt(r) {
  $("receipt").classList.toggle("hidden", !r);
  $("receipt").innerHTML = r ? receiptHtml(r) : "";
}

// Nobody steers the deal: this page adds 32 random bytes to the next deal's seed, which the rig committed
// to first (controller/service/contribute.py); verify-deal checks every share.
async function contribute() {
  try {
    const next = await api("/api/deal/next");
    if (next.commitment === shared || next.contributed.includes(seat)) { shared = next.commitment; return; }
    const value = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
    await api(`/api/seats/${seat}/contribution`, { method: "POST", token, body: { value, commitment: next.commitment } });
    shared = next.commitment;
  } catch (e) { /* the deal is still fair without it; the next round tries again */ }
}

async function refresh() {
  timer = null;
  try {
    const me = await api("/api/whoami", { token });
    seat = me.seat;
    setNames((await api("/api/names")).names);
    if (NAMES[seat] && document.activeElement !== $("name")) $("name").value = NAMES[seat];
    if (shared === null) { shared = ""; contribute(); }
    if (me.round) roundId = me.round;
    // before the first deal there is nothing to press: no buttons, no empty menus
    document.body.classList.toggle("no-hand", roundId === null);
    if (roundId === null) {
      $("who").innerHTML = seatName(seat);
      $("status").innerHTML = "等待发牌 <span class='en'>Waiting for a deal</span>";
      return;
    }
    view = await api(`/api/rounds/${roundId}/seats/${seat}`, { token });
    const pub = await api(`/api/rounds/${roundId}`);
    render(pub);
    showHint();
  } catch (e) {
    showError(e);
  }
}

// the beginner's hint (off until this seat turns it on): worked out by the service from this seat's view only
let hintOn = sessionStorage.getItem("hongsi-hint") === "1";
$("hint-on").checked = hintOn;
$("hint-on").onchange = async () => {
  hintOn = $("hint-on").checked;
  sessionStorage.setItem("hongsi-hint", hintOn ? "1" : "0");
  try { await api(`/api/seats/${seat}/hint`, { method: "PUT", token, body: { on: hintOn } }); } catch (e) { showError(e); }
  showHint();
};
let hintKey = null;
async function showHint() {
  const el = $("bot-hint");
  if (!hintOn || roundId === null || !view || !(view.legal || []).length) { el.classList.add("hidden"); hintKey = null; return; }
  const key = `${roundId}:${JSON.stringify(view.legal)}`;
  if (key === hintKey) return;
  hintKey = key;
  try {
    let h;
    try { h = await api(`/api/rounds/${roundId}/seats/${seat}/hint`, { token }); } catch (e) {
      if (e.status !== 409) throw e;  // the service forgot (a restart): turn it on again
      await api(`/api/seats/${seat}/hint`, { method: "PUT", token, body: { on: true } });
      h = await api(`/api/rounds/${roundId}/seats/${seat}/hint`, { token });
    }
    el.innerHTML = `💡 ${esc(h.text_zh)} <span class="en">${esc(h.text)}</span>`;
    el.classList.remove("hidden");
  } catch (e) { hintKey = null; el.classList.add("hidden"); }
}

function soon() { if (!timer) timer = setTimeout(refresh, 80); }

let acting = false;  // one action at a time: a double tap's copy would be refereed after it, a refusal the table hears
// The rules' order: 叫完牌问有没有人说话？确定没人喊趴再开始出牌. The first play waits while other people may still
// declare (the table's window, until they say Ready); the API itself referees at once.
function othersMaySpeak(action) {
  if (action.action !== "play" || !lastPub || Date.now() >= speakUntil) return null;
  const others = (lastPub.undecided || []).filter((s) => s !== seat);
  return others.length ? others : null;
}

async function act(action) {
  if (roundId === null || acting) return;
  const others = othersMaySpeak(action);
  if (others) {
    const zh = others.map((s) => `${ZH_NUM[s] || s + 1}号位`).join("、"), en = others.map((s) => `Seat ${s + 1}`).join(", ");
    const left = Math.ceil((speakUntil - Date.now()) / 1000);
    showMsg(`还有人可以说话（${esc(zh)}）：请等${left}秒，或等他们准备好` +
      `<br><span class="en">${esc(en)} may still declare: play in ${left} s, or once they are ready</span>`, "refused");
    return;
  }
  acting = true;
  try {
    const res = await api(`/api/rounds/${roundId}/events`, { method: "POST", token, body: { seat, ...action } });
    const errors = res.violations.filter((v) => v.severity === "error");
    if (errors.length) {
      const v = errors[0];
      showMsg(`<b>违规 Refused</b> · ${esc(v.message_zh)}<br><span class="en">${esc(v.message)}</span>`, "refused");
    } else {
      showMsg(`✓ ${esc(actionName(action)[0])} <span class="en">accepted</span>` +
        res.violations.map((v) => `<br><span class="en">${esc(v.message)}</span>`).join(""), "ok");
      if (action.action === "play" || action.action === "bury") selected.clear();
    }
  } catch (e) {
    showError(e);
  } finally {
    acting = false;
  }
  soon();
}

$("name-form").onsubmit = async (e) => {  // the display, the ledger and the pages use the name
  e.preventDefault();
  if (seat === null) return;
  try {
    setNames((await api(`/api/seats/${seat}/name`, { method: "PUT", token, body: { name: $("name").value } })).names);
    showMsg("✓ 名字已改 <span class='en'>name set</span>", "ok");
  } catch (err) {
    showError(err);
  }
  soon();
};

const chosen = () => sortCards([...selected].flatMap(([c, n]) => Array(n).fill(c)));
$("btn-play").onclick = () => act({ action: "play", cards: chosen() });
$("btn-bury").onclick = () => act({ action: "bury", cards: chosen() });
$("btn-pass").onclick = () => act({ action: "pass" });
$("btn-ready").onclick = async () => {
  if (roundId === null) return;
  try {
    await api(`/api/rounds/${roundId}/seats/${seat}/ready`, { method: "POST", token });
    showMsg("✓ 准备好了 <span class='en'>ready</span>", "ok");
  } catch (e) {
    showError(e);
  }
  soon();
};
$("btn-tiao").onclick = () => act({ action: "tiao" });
$("btn-baomen").onclick = () => act({ action: "baomen" });
$("btn-call").onclick = () => act({ action: "call", card: $("call-card").value });
$("btn-pa").onclick = () => act({ action: "pa", target: Number($("pa-target").value) });
$("btn-pa-accept").onclick = () => act({ action: "pa_accept" });
$("btn-pa-refuse").onclick = () => act({ action: "pa_refuse" });

if (!token) {
  showMsg("请扫描座位二维码 <span class='en'>Open this page from your seat's link or QR code.</span>", "refused");
} else {
  subscribe((ev) => {
    if (ev.type === "round") {  // a new hand: nothing of the last one stays on screen
      roundId = ev.round; view = null; selected.clear();
      $("msg").className = "msg hidden"; $("notice").classList.add("hidden"); $("trick").innerHTML = "";
      showReceipt(null);
    }
    if (ev.type === "receipt" && ev.round === roundId) showReceipt(ev);
    if (ev.type === "table_camera" && ev.seat === seat && ev.round === roundId) tableAsk().catch(console.warn);
    if (ev.type === "names") setNames(ev.names);
    if (ev.type === "round") { roundId = ev.round; selected.clear(); contribute(); }
    if (ev.type !== "voice" && ev.type !== "deal") soon();
    else if (ev.type === "deal" && ev.dealt === ev.total) soon();
  }, async () => {  // on every (re)connect too: nothing missed while the stream was down
    await refresh();
    if (roundId !== null) showReceipt(await latestReceipt(roundId));
  });
  refresh();
}
