// /play: one team's phone as its button (docs/web.md «/play», docs/phones.md).
// The link's fragment holds the team's token (#t=…, never sent in a URL to the server); a new
// link pasted into the same tab (only the fragment changes: no reload) joins with its token.
// One WebSocket (/api/play): the join, clock exchanges (several at once, then every few
// seconds), presses stamped with the pointer event's own timeStamp, and the audience's view
// model, whose screen model (audience.screen, controller/core/screen.py) the answer to this
// phone is derived from without knowing the game: who holds the answer, this team's card (found
// by its button; barred …), its presses in the press order, whether a press now races for the
// answer (presses.armed), whether a question takes a press at all (presses.open), how a question
// ended, the game's countdown (main.clock), the pause.  A press's fate is the game's own record of
// it: the entry of this team that came after the tap, with the projector's tag («Рано», «Фальстарт»);
// «Нажатие принято» says only that the server received the press, until the game has its fate.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent || "{}");
  const $ = (id) => document.getElementById(id);
  const buzz = $("buzz");
  const BURST = 5;                       // clock exchanges at joining, in quick succession
  // the link's token: "" when the link has none, null when it is malformed (a token is
  // URL-safe base64: controller/web/net.py new_token)
  function readToken() {
    const m = location.hash.match(/[#&]t=([^&]*)/);
    if (!m) return "";
    let t;
    try { t = decodeURIComponent(m[1]); } catch (e) { return null; }
    return /^[A-Za-z0-9_-]{8,100}$/.test(t) ? t : null;
  }
  let token = readToken();
  let ws = null, me = null, vm = null, done = null, n = 0, retry = 500, timer = null, quick = null;
  let dead = "", bound = null, exchanges = 0, refused = "", said = "", acked = false;
  // the last tap: how many entries of this team the press order had then (an entry beyond them is
  // this press's fate), the uncertainty the server answered, whether no question took it
  let mark = 0, unc = null, ignored = false, wasArmed = false;
  window.buzzer = { me: () => me, bound: () => bound, presses: [], gone: () => dead };

  document.querySelectorAll("[data-label]").forEach((e) => { e.textContent = L[e.dataset.label] || ""; });
  const fill = (text, params) => String(text || "").replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? params[k] : m));

  // the phone's clock: milliseconds since the epoch, as precise as the page's own clock
  const clock = () => performance.timeOrigin + performance.now();
  // an event's own time on that clock (a browser's timeStamp is relative to timeOrigin; an old
  // one's is already since the epoch)
  const stampOf = (ev) => (ev.timeStamp > 1e12 ? ev.timeStamp : performance.timeOrigin + ev.timeStamp);

  // The ink on the team's colour: black or white, whichever contrasts more with it (WCAG's
  // relative luminance; the better of the two is at least 4.58:1 for any colour).
  function luminance(colour) {
    let h = (/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(colour || "").trim()) || [])[1];
    if (!h) return null;
    if (h.length === 3) h = h.replace(/./g, "$&$&");
    const c = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255)
      .map((v) => (v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4)));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  function paint(colour) {
    const l = luminance(colour);
    if (l === null) return;
    document.body.style.setProperty("--team", colour);
    document.body.style.setProperty("--ink", 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? "#fff" : "#000");
  }

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(msg)); return true; }
    return false;
  }
  function ping() {
    const msg = { t: "sync", c: clock() };
    if (done) { msg.d = done; done = null; }
    send(msg);
  }
  function stopSync() { clearInterval(timer); clearInterval(quick); }
  function startSync(intervalS) {
    stopSync();
    // at joining: a burst of exchanges in quick succession, then one every sync_interval_s
    let burst = BURST;
    quick = setInterval(() => { ping(); if (--burst <= 0) clearInterval(quick); }, 120);
    timer = setInterval(ping, Math.max(200, (intervalS || 2) * 1000));
  }
  // How well the clock is known: "syncing" (no estimate yet, or one over the limit while the
  // first exchanges still narrow it), "out" (over [phones] bound_max_ms after them) or "good".
  function syncState() {
    if (bound === null) return "syncing";
    if (me && typeof me.bound_max_ms === "number" && bound > me.bound_max_ms) return exchanges < BURST ? "syncing" : "out";
    return "good";
  }

  function press(ev) {
    ev.preventDefault();
    if (buzz.disabled) return;
    const at = stampOf(ev);              // the touch, as the browser stamped it
    if (!buzz.classList.contains("is-locked") && !buzz.classList.contains("is-idle")) buzz.classList.add("is-down");
    refused = "";
    acked = false;
    unc = null;
    ignored = false;
    mark = mineAll(screen()).length;
    // sent whatever the page believes of the race or the clock: the game decides, and the
    // answer says how sure the press was (its uncertainty) or why it was not taken
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
  const screen = () => (vm && vm.audience && vm.audience.screen) || {};
  // this team's entries in the press order, every wave's
  const mineAll = (sc) => ((sc.presses && sc.presses.entries) || []).filter((r) => me && r.button === me.button);
  // this phone's team: the card whose button the join named
  function myCard(sc) {
    return cardsOf(sc).find((c) => me && c.button === me.button) || null;
  }
  const LOCKED = ["locked", "out", "blocked", "disabled", "stuck"];
  // A tie this phone's press was in, worded as the projector words the host's notice
  // (race_tie_within_draw / _order, tie_drawn / tie_by_order): by the game's [arbiter] tie_rule,
  // which the join told («жребий выбрал: Альфа», «отвечает Альфа — по порядку команд»).
  function tieLine(rows, last, wave) {
    if (!last || !last.tie || last.kind === "rearmed") return "";
    const first = rows.find((r) => (r.wave || 0) === wave && r.kind === "answer");
    if (!first) return "";
    const order = me && me.tie_rule === "order";
    const key = last.tie_ms ? (order ? "play_tie_order" : "play_tie_lot") : (order ? "play_tie_exact_order" : "play_tie_exact_lot");
    return fill(L[key], { ms: last.tie_ms, team: first.name || first.button || "" });
  }
  // a press's tag as the projector words it («Рано»), else its kind
  const tagOf = (r) => (r.tag && r.tag.text) || r.kind || "";
  // The line under the button after a tap: «Нажатие принято: ±N мс» (the server received it)
  // until the game has the press's fate -- its entry after the tap, with the projector's tag
  // («Не засчитано: Рано») -- or no question took it («Вопроса ещё нет: нажатие не засчитано»).
  function pressLine(sc, a) {
    if (refused || !acked || a.late) return { text: "", bad: false };
    const own = mineAll(sc);
    const order = sc.presses || {};
    if (own.length < mark) mark = 0;      // another question's order: the entries began again
    const fate = own.length > mark ? own[own.length - 1] : null;
    if (fate && fate.tag) return { text: fill(L.play_fate, { tag: tagOf(fate) }), bad: true };
    if (fate) ignored = false;
    // no question open when the press came: the game takes no press then (it stays so, until a
    // race is on or the game records the press after all)
    else if (order.shown !== false && !order.open) ignored = true;
    if (ignored) return { text: L.play_no_question || "", bad: true };
    return { text: fill(L.play_unc, { ms: unc }), bad: false };
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
    const tie = tieLine(rows, last, wave);
    const locked = !!(mine.barred || (last && LOCKED.includes(last.kind)));
    const out = (a) => Object.assign({ tie: tie, shut: locked }, a);
    if (mine.holder) return out({ text: L.play_you || "", kind: "you" });
    if (last && last.kind === "false_start") return out({ text: L.play_false_start || "", kind: "bad" });
    // a tie: nobody knows who was first, the rule chose (the tie line says how)
    if (holder && last && last.kind === "lockout" && last.tie) return out({ text: fill(L.play_holder, { team: holder.name }), kind: "bad" });
    if (holder && last && ["lockout", "late"].includes(last.kind))
      return out({ text: fill(L.play_before, { team: holder.name }), kind: "bad" });
    // a press while another team answers is «early» for the next race: the projector's word for
    // it, and who answers
    if (holder && last && last.kind === "early")
      return out({ text: fill(L.play_fate_holder, { tag: tagOf(last), team: holder.name }), kind: "bad" });
    if (locked) return out({ text: L.play_locked || "", kind: "bad" });
    // re-armed after a tie: press again, until another team answers in the new race
    if (last && last.kind === "rearmed" && !holder) return out({ text: fill(L.play_rearm, { ms: last.tie_ms || "?" }), kind: "" });
    if (last && last.kind === "early" && !holder) return out({ text: L.play_early || "", kind: "bad" });
    if (holder) return out({ text: fill(L.play_holder, { team: holder.name }), kind: "" });
    if (last && last.kind === "pending") return out({ text: L.play_pressed || "", kind: "" });
    if (order.armed) return out({ text: L.play_armed || "", kind: "" });
    // this phone's press came after the question's time ran out: the game did not take it
    const main = sc.main || {};
    if (acked && !last && main.kind === "outcome" && main.outcome && main.outcome.kind === "time_up")
      return out({ text: L.play_late || "", kind: "bad", late: true });
    return out({ text: L.play_wait || "", kind: "" });
  }
  function render() {
    if (dead) return;
    const sc = screen();
    const mine = myCard(sc);
    if (mine) {
      $("team").textContent = mine.name;
      if (mine.colour) paint(mine.colour);
    }
    // a race began after the tap: that press is no longer the news
    const armed = !!(sc.presses && sc.presses.armed);
    if (armed && !wasArmed) { acked = false; ignored = false; }
    wasArmed = armed;
    const a = answer(sc);
    const sync = syncState();
    // a phone kept out of the races says so before it presses, not only after
    const excluded = sync === "out" && me && me.exclude_over_bound && a.kind !== "you";
    const box = $("answer");
    box.textContent = refused || (excluded ? L.play_out_excluded : a.text);
    box.className = "answer" + (refused || excluded ? " is-bad" : a.kind ? " is-" + a.kind : "");
    $("tie").textContent = a.tie || "";
    $("tie").hidden = !a.tie;
    const line = pressLine(sc, a);
    $("detail").textContent = line.text;
    $("detail").className = "detail" + (line.bad ? " is-bad" : "");
    if (a.kind === "you" && said !== "you" && navigator.vibrate) navigator.vibrate([90, 50, 90]);
    said = a.kind;
    buzz.disabled = !me;
    // locked out of this question (or out of the races): not pressable-looking, and it says why
    const locked = !!me && (a.shut || excluded);
    // no press races now (between questions, another team answers, before the buttons are on):
    // not «Жми!»; a tap still goes to the game, which says what it was (the line under it)
    const order = sc.presses || {};
    const idle = !!me && !locked && order.shown !== false && !order.armed;
    buzz.classList.toggle("is-locked", locked);
    buzz.classList.toggle("is-idle", idle);
    buzz.setAttribute("aria-disabled", locked || idle ? "true" : "false");
    $("buzz-label").textContent = locked ? (L.play_button_locked || "")
      : idle ? ((mine && mine.holder ? L.play_button_answer : L.play_button_idle) || "") : (L.play_press || "");
    const paused = !!(sc.header && sc.header.paused);
    $("paused").hidden = !paused;
    $("paused").textContent = paused ? (L.paused || "") : "";
    // the game's own countdown (the question's), whatever the big panel holds
    const cd = (sc.main && sc.main.clock) || null;
    $("countdown").hidden = !cd;
    if (cd) $("countdown").textContent = (Math.max(0, cd.remaining_ms || 0) / 1000).toFixed(1);
    const s = $("sync");
    s.textContent = sync === "good" ? fill(L.play_bound, { ms: bound })
      : sync === "out" ? fill(L.play_out, { ms: bound, max: me.bound_max_ms })
      : bound === null ? (L.play_sync || "") : fill(L.play_syncing, { ms: bound });
    s.className = "sync" + (sync === "out" ? " is-bad" : "");
    document.body.dataset.answer = a.kind;
    document.body.dataset.sync = sync;
  }
  function status(text, ok) { const c = $("conn"); c.textContent = text; c.classList.toggle("ok", !!ok); }

  // A link that cannot work: one screen that says why, nothing to press; no reconnecting
  // (a new link pasted into this tab starts again: hashchange).
  const GONE = { bad: "play_bad_link", renewed: "play_renewed", full: "play_team_full", off: "play_off" };
  function gone(kind) {
    dead = kind;
    stopSync();
    me = null;
    buzz.disabled = true;
    $("gone-text").textContent = L[GONE[kind]] || L.play_bad_link || "";
    $("gone").hidden = false;
    document.body.classList.add("is-gone");
    document.body.dataset.gone = kind;
    if (ws) { const old = ws; ws = null; old.close(); }
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const sock = new WebSocket(proto + "//" + location.host + "/api/play");
    const mine = () => sock === ws;      // a socket of an earlier link says nothing any more
    ws = sock;
    sock.onopen = () => { if (mine()) { retry = 500; send({ t: "join", token: token }); } };
    sock.onmessage = (ev) => {
      if (!mine()) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (typeof msg.seq === "number") { vm = msg; render(); return; }
      if (msg.t === "me") { me = msg; status(L.connected || "", true); startSync(msg.sync_interval_s); render(); }
      else if (msg.t === "sync") {
        done = [msg.c, clock()];                 // completed with the next exchange
        if (msg.b !== undefined) { bound = msg.b; exchanges++; }
        render();
      } else if (msg.t === "press") {
        refused = msg.ok ? "" : (msg.why === "bound" ? L.play_refused_bound : L.play_refused_sync) || "";
        acked = !!msg.ok;
        unc = msg.ok ? msg.unc_ms : null;
        render();
      } else if (msg.t === "error") {
        if (msg.why === "bad token") gone("bad");
        else if (msg.why === "team full") gone("full");
        else if (msg.why === "phones off") gone("off");
        else if (msg.why === "too many requests") status(L.play_busy || "", false);   // tried again later
      }
    };
    sock.onclose = (ev) => {
      if (!mine()) return;
      stopSync();
      me = null;
      if (ev.code === 4001) { gone("renewed"); return; }   // the host renewed this team's link
      if (dead) return;
      if ($("conn").textContent !== L.play_busy) status(L.offline || "", false);
      buzz.disabled = true;
      render();
      setTimeout(() => { if (mine() && !dead) connect(); }, retry);    // a dropped phone comes back with the same link
      retry = Math.min(retry * 2, 5000);
    };
  }
  function start() {
    if (!token) { gone("bad"); return; }  // no token, or one no server ever gave
    status(L.waiting || "", false);
    connect();
    render();
  }
  // another team's link (or a renewed one) pasted into this tab: only the fragment changed, the
  // page is not loaded again; leave the old join and join with the new token
  window.addEventListener("hashchange", () => {
    const next = readToken();
    if (next === token && !dead) return;
    token = next;
    stopSync();
    if (ws) { const old = ws; ws = null; old.close(); }
    me = vm = done = bound = null;
    dead = refused = said = "";
    exchanges = 0;
    acked = false;
    unc = null;
    mark = 0;
    ignored = wasArmed = false;
    retry = 500;
    $("gone").hidden = true;
    document.body.classList.remove("is-gone");
    delete document.body.dataset.gone;
    ["team", "detail", "answer"].forEach((id) => { $(id).textContent = ""; });
    document.body.style.removeProperty("--team");
    document.body.style.removeProperty("--ink");
    start();
  });
  start();
})();
