// /play: one team's phone as its button (docs/web.md «/play», docs/inputs.md «Phones»).
// The link's fragment holds the team's token (#t=…, never sent in a URL to the server). One
// WebSocket (/api/play): the join, clock exchanges (several at once, then every few seconds),
// presses stamped with the pointer event's own timeStamp, and the audience's view model, whose
// screen model (audience.screen, controller/core/screen.py) the answer to this phone is derived
// from without knowing the game: who holds the answer, this team's card (found by its button;
// barred …), its presses in the press order, whether a press now races for the answer
// (presses.armed), how a question ended, the game's countdown (main.clock).
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent || "{}");
  const $ = (id) => document.getElementById(id);
  const token = decodeURIComponent((location.hash.match(/[#&]t=([^&]+)/) || [])[1] || "");
  const buzz = $("buzz");
  let ws = null, me = null, vm = null, done = null, n = 0, retry = 500, timer = null, dead = false;
  let bound = null, refused = "", said = "", acked = false;
  window.buzzer = { me: () => me, bound: () => bound, presses: [] };

  document.querySelectorAll("[data-label]").forEach((e) => { e.textContent = L[e.dataset.label] || ""; });
  const fill = (text, params) => String(text || "").replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? params[k] : m));

  // the phone's clock: milliseconds since the epoch, as precise as the page's own clock
  const clock = () => performance.timeOrigin + performance.now();
  // an event's own time on that clock (a browser's timeStamp is relative to timeOrigin; an old
  // one's is already since the epoch)
  const stampOf = (ev) => (ev.timeStamp > 1e12 ? ev.timeStamp : performance.timeOrigin + ev.timeStamp);

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(msg)); return true; }
    return false;
  }
  function ping() {
    const msg = { t: "sync", c: clock() };
    if (done) { msg.d = done; done = null; }
    send(msg);
  }
  function startSync(intervalS) {
    clearInterval(timer);
    // at joining: five exchanges in quick succession, then one every sync_interval_s
    let burst = 5;
    const quick = setInterval(() => { ping(); if (--burst <= 0) clearInterval(quick); }, 120);
    timer = setInterval(ping, Math.max(200, (intervalS || 2) * 1000));
  }

  function press(ev) {
    ev.preventDefault();
    if (buzz.disabled) return;
    const at = stampOf(ev);              // the touch, as the browser stamped it
    buzz.classList.add("is-down");
    refused = "";
    acked = false;
    const msg = { t: "press", at: at, sent: clock(), n: ++n };
    if (send(msg)) {
      window.buzzer.presses.push(msg);
      if (navigator.vibrate) navigator.vibrate(30);
    }
  }
  buzz.addEventListener("pointerdown", press);
  ["pointerup", "pointercancel", "pointerleave"].forEach((k) => buzz.addEventListener(k, () => buzz.classList.remove("is-down")));
  buzz.addEventListener("contextmenu", (ev) => ev.preventDefault());

  const cardsOf = (sc) => (sc.cards && sc.cards.items) || [];
  // this phone's team: the card whose button the join named
  function myCard(sc) {
    return cardsOf(sc).find((c) => me && c.button === me.button) || null;
  }
  // The answer to this phone, from the audience's screen model alone (never a game's name).
  function answer(sc) {
    const mine = myCard(sc);
    if (!mine) return { text: L.play_wait || "", kind: "" };
    const order = sc.presses || {};
    const rows = order.entries || [];
    const wave = order.wave || 0;
    const own = rows.filter((r) => r.button === me.button && (r.wave || 0) === wave);
    const last = own.length ? own[own.length - 1] : null;
    const holder = cardsOf(sc).find((c) => c.holder) || null;
    const tie = last && last.tie && last.tie_ms ? " · " + fill(L.tie_within, { ms: last.tie_ms }) : "";
    if (mine.holder) return { text: (L.play_you || "") + tie, kind: "you" };
    if (last && last.kind === "false_start") return { text: L.play_false_start || "", kind: "bad" };
    if (holder && last && ["lockout", "late"].includes(last.kind))
      return { text: fill(L.play_before, { team: holder.name }) + tie, kind: "bad" };
    if (mine.barred || (last && ["locked", "out", "blocked", "disabled", "stuck"].includes(last.kind)))
      return { text: L.play_locked || "", kind: "bad" };
    // re-armed after a tie: press again, until another team answers in the new race
    if (last && last.kind === "rearmed" && !holder) return { text: fill(L.play_rearm, { ms: last.tie_ms || "?" }), kind: "" };
    // a press while another team answers is «early» for the next race: say who answers, not «not armed»
    if (last && last.kind === "early" && !holder) return { text: L.play_early || "", kind: "bad" };
    if (holder) return { text: fill(L.play_holder, { team: holder.name }), kind: "" };
    if (last && last.kind === "pending") return { text: L.play_pressed || "", kind: "" };
    if (order.armed) return { text: L.play_armed || "", kind: "" };
    // this phone's press came after the question's time ran out: the game did not take it
    const main = sc.main || {};
    if (acked && !last && main.kind === "outcome" && main.outcome && main.outcome.kind === "time_up")
      return { text: L.play_late || "", kind: "bad", late: true };
    return { text: L.play_wait || "", kind: "" };
  }
  function render() {
    const sc = (vm && vm.audience && vm.audience.screen) || {};
    const mine = myCard(sc);
    if (mine) {
      $("team").textContent = mine.name;
      if (mine.colour) document.body.style.setProperty("--team", mine.colour);
    }
    if (sc.presses && sc.presses.armed) acked = false;   // a race on: an earlier press is no longer the news
    const a = answer(sc);
    const box = $("answer");
    const text = refused || a.text;
    box.textContent = text;
    // «Нажатие принято: ±N мс» only for a press the game could take
    if (a.late) $("detail").textContent = "";
    box.className = "answer" + (refused ? " is-bad" : a.kind ? " is-" + a.kind : "");
    if (a.kind === "you" && said !== "you" && navigator.vibrate) navigator.vibrate([90, 50, 90]);
    said = a.kind;
    buzz.disabled = !me || dead;
    // the game's own countdown (the question's), whatever the big panel holds
    const cd = (sc.main && sc.main.clock) || null;
    $("countdown").hidden = !cd;
    if (cd) $("countdown").textContent = (Math.max(0, cd.remaining_ms || 0) / 1000).toFixed(1);
    $("sync").textContent = bound === null ? (L.play_sync || "") : fill(L.play_bound, { ms: bound });
    document.body.dataset.answer = a.kind;
  }
  function status(text, ok) { const c = $("conn"); c.textContent = text; c.classList.toggle("ok", !!ok); }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/api/play");
    ws.onopen = () => { retry = 500; send({ t: "join", token: token }); };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (typeof msg.seq === "number") { vm = msg; render(); return; }
      if (msg.t === "me") { me = msg; status(L.connected || "", true); startSync(msg.sync_interval_s); render(); }
      else if (msg.t === "sync") {
        done = [msg.c, clock()];                 // completed with the next exchange
        if (msg.b !== undefined) bound = msg.b;
        render();
      } else if (msg.t === "press") {
        refused = msg.ok ? "" : (msg.why === "bound" ? L.play_refused_bound : L.play_refused_sync) || "";
        acked = !!msg.ok;
        $("detail").textContent = msg.ok ? fill(L.play_unc, { ms: msg.unc_ms }) : "";
        render();
      } else if (msg.t === "error") {
        if (msg.why === "bad token" || msg.why === "team full") {
          dead = true;
          $("answer").textContent = msg.why === "bad token" ? L.play_bad_link : L.play_team_full;
          $("answer").className = "answer is-bad";
          buzz.disabled = true;
        }
      }
    };
    ws.onclose = (ev) => {
      clearInterval(timer);
      me = null;
      status(L.offline || "", false);
      if (ev.code === 4001) {          // the host renewed this team's link
        dead = true;
        $("answer").textContent = L.play_bad_link || "";
        $("answer").className = "answer is-bad";
      }
      buzz.disabled = true;
      if (dead) return;
      setTimeout(connect, retry);    // a dropped phone comes back with the same link
      retry = Math.min(retry * 2, 5000);
    };
  }
  if (!token) { dead = true; $("answer").textContent = L.play_bad_link || ""; }
  else { status(L.waiting || "", false); connect(); }
  render();
})();
