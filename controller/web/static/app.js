// The live pages of buzzer-controller: /, /overlay and /host (docs/web.md).
// One WebSocket (/api/stream) brings the view model: a full snapshot on connect, then every
// change with its seq. The host page sends its token over the socket (never in a URL) and
// host actions to POST /api/host with the token in the Authorization header.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent || "{}");
  const page = document.body.dataset.page;
  const $ = (id) => document.getElementById(id);
  const token = (location.hash.match(/token=([^&]+)/) || [])[1] || "";
  let seq = -1, ws = null, retry = 500;
  window.buzzer = { seq: () => seq, last: null };

  document.querySelectorAll("[data-label]").forEach((el) => { el.textContent = L[el.dataset.label] || ""; });

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function show(node, on) { if (node) node.hidden = !on; }
  const fillIn = (text, params) => String(text || "").replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? params[k] : m));
  function teamsOf(g) {
    if (Array.isArray(g.teams)) return g.teams.map((t) => ({ name: t.name, score: t.score, color: t.color,
      holder: !!t.holder, out: !!(t.locked || t.disabled), total: t.series_total }));
    if (Array.isArray(g.seats)) return g.seats.map((s) => ({ name: (s.seat !== undefined ? s.seat + ". " : "") + (s.name || ""),
      score: s.fouls !== undefined ? "⚠".repeat(s.fouls || 0) : "", color: null, holder: !!s.speaking, out: !!(s.out || s.removed) }));
    return [];
  }
  function renderTeams(g) {
    const box = $("teams");
    if (!box) return;
    box.replaceChildren(...teamsOf(g).map((t) => {
      const card = el("div", "team" + (t.holder ? " is-holder" : "") + (t.out ? " is-out" : ""));
      if (t.color) card.style.setProperty("--team", t.color);
      card.append(el("span", "name", t.name), el("span", "score", t.score === undefined || t.score === null ? "" : t.score));
      // a programme's running total, every game so far (as the projector's card shows it)
      if (t.total !== undefined && t.total !== null) {
        card.classList.add("has-total");
        card.append(el("span", "total", (L.total || "") + " " + t.total));
      }
      return card;
    }));
  }
  function renderHeader(vm, g) {
    const title = $("title");
    // a programme: which of its games is on («Игра 2 из 3»), after the game's title
    const series = (vm.audience && vm.audience.series_head) || "";
    if (title) title.textContent = (vm.title || "") + (series ? " · " + series : "");
    const q = g.question || null, parts = [];
    if (g.stage === "finished") {   // the end of the game: said as the projector says it
      // and what the final table leaves open (ЧГК: places shared, a shoot-out due)
      const scr = (vm.audience && vm.audience.screen) || {};
      const note = (scr.standings && scr.standings.note) || "";
      if ($("question")) $("question").textContent = (L.game_over || "") + (note ? " · " + note : "");
      return;
    }
    // the question as the projector names it (the view model's one derivation: «Вопрос 1/5»)
    if (q && vm.audience && vm.audience.question_head) parts.push(vm.audience.question_head);
    if (q && q.nominal) parts.push(String(q.nominal));
    const theme = (q && q.theme) || g.theme;
    if (theme) parts.push(theme);
    if ($("question")) $("question").textContent = parts.join(" · ");
  }
  function renderHolder(g) {
    const box = $("holder");
    if (!box) return;
    const h = (g.teams || []).find((t) => t.holder);
    show(box, !!h);
    if (h) {
      box.replaceChildren(el("span", "label", L.answering || ""), el("span", "name", h.name));
      box.style.setProperty("--team", h.color || "#888");
    }
  }
  function seconds(cd) {
    const left = Math.max(0, cd.remaining_ms || 0);
    return (left / 1000).toFixed(left < 10000 ? 1 : 0);
  }
  // The question's countdown; without one, Эрудит-квартет's captain's timer in its place (with
  // its name), as the projector shows it. The captain's timer never takes the holder's place:
  // beside a question's countdown it is a small line of its own.
  function renderCountdown(g) {
    const box = $("countdown");
    if (!box) return;
    const own = g.countdown || (g.timer && g.timer.total_ms ? g.timer : null);
    const captain = g.captain || null;
    const cd = own || captain;
    show(box, !!cd);
    if (!cd) return;
    const label = box.querySelector(".cd-label"), small = box.querySelector(".cd-captain");
    show(label, !own);
    if (label) label.textContent = !own ? (L.captain_timer || "") : "";
    show(small, !!(own && captain));
    if (small) small.textContent = own && captain ? (L.captain_timer || "") + " " + seconds(captain) : "";
    box.querySelector(".cd-number").textContent = seconds(cd);
    const total = cd.total_ms || 1;
    box.querySelector(".fill").style.width = Math.min(100, 100 * Math.max(0, cd.remaining_ms || 0) / total) + "%";
    box.classList.toggle("stopped", cd.running === false);
  }
  // The press order as the projector draws it: a number in its wave's race, the gap to the
  // wave's first press in seconds (the catalog's unit), a tag for a press that did not count;
  // a line between waves, the earlier waves faint.
  const COUNTED = (L.counted || "").split(",");
  function fmtGap(ms) {
    const s = Number(ms || 0) / 1000;
    return (L.gap_s || "{s}").replace("{s}", (s < 0 ? "\u2212" : "+") + Math.abs(s).toFixed(3));
  }
  function renderPresses(g) {
    const box = $("presses-box"), list = $("presses");
    if (!box || !list) return;
    const q = g.question || {};
    const presses = q.presses || [];
    show(box, presses.length > 0);
    const wave = q.wave !== undefined ? q.wave : Math.max(0, ...presses.map((p) => p.wave || 0));
    const places = {};
    let prev = null;
    list.replaceChildren(...presses.map((p) => {
      const w = p.wave || 0;
      const counted = COUNTED.includes(p.kind);
      const place = counted ? (places[w] = (places[w] || 0) + 1) : null;
      const li = el("li", "press" + (p.kind ? " press-" + p.kind : "") + (w === wave ? "" : " press-old")
        + (prev !== null && w !== prev ? " press-wave" : ""));
      prev = w;
      li.dataset.wave = String(w);
      const tag = L["press_" + p.kind] || (p.tie ? (p.tie_ms ? fillIn(L.tie_within, { ms: p.tie_ms }) : L.press_tie) : "");
      li.append(el("span", "place", place ? place + "." : "·"), el("span", "who", p.team || p.button),
        tag ? el("span", "tag", tag) : el("span", "gap", fmtGap(p.gap_ms)));
      return li;
    }));
  }
  function renderStandings(g) {
    const box = $("standings-box"), table = $("standings");
    if (!box || !table) return;
    const rows = g.standings || [];
    show(box, rows.length > 0);
    table.replaceChildren(...rows.map((r) => {
      const tr = el("tr");
      // a shared place as its range where the game names one («1–2»), as the projector shows it
      tr.append(el("td", "place", r.tied && r.place_label ? r.place_label : r.place), el("td", "st-team", r.team),
        el("td", "points", r.points));
      return tr;
    }));
  }
  // A SIGame package's question as the projector shows it: the theme's comment, the text, the
  // picture showing now (the question's pictures in turn), a select question's options, its
  // video played here (the projector cannot: it names it), its HTML page in a sandboxed frame;
  // after the ruling the right answer with the package's answer content. Pictures, videos and
  // pages come from /media, which serves only what the audience is being shown.
  function mediaUrl(m) {
    if (m.member) return "/media?m=" + encodeURIComponent(m.member);
    return /^https?:\/\//i.test(m.name || "") ? m.name : "";   // a link the package gives
  }
  function mediaNode(m) {
    const url = mediaUrl(m);
    if (!url) return el("div", "pack-missing", m.name);
    let n;
    if (m.kind === "image") { n = el("img", "pack-image"); n.alt = m.name; }
    else if (m.kind === "video") {
      n = el("video", "pack-video");
      n.controls = true; n.autoplay = true; n.playsInline = true;
      // a page nobody has touched may not play sound: then it plays muted (the controls unmute)
      n.addEventListener("canplay", () => { n.play().catch(() => { n.muted = true; n.play().catch(() => {}); }); }, { once: true });
    } else if (m.kind === "audio") { n = el("audio", "pack-audio"); n.controls = true; }
    else if (m.kind === "html") {
      n = el("iframe", "pack-html");
      n.setAttribute("sandbox", "allow-scripts");
      n.referrerPolicy = "no-referrer";
    } else return el("div", "pack-missing", m.name);
    n.src = url;
    n.dataset.member = m.member || m.name;
    return n;
  }
  function packPart(part, box, cls) {
    // the picture showing now, and every video and page (sounds play through the hall's speakers)
    const items = [];
    const img = part.media && part.media.image;
    if (img) items.push(Object.assign({ kind: "image" }, img));
    (part.items || []).forEach((m) => { if (m.kind === "video" || m.kind === "html") items.push(m); });
    const want = items.map((m) => m.kind + ":" + (m.member || m.name)).join("|");
    if (box.dataset.items !== want) {   // a playing video is not restarted by the next snapshot
      box.dataset.items = want;
      box.replaceChildren(...items.map(mediaNode));
    }
    box.className = "pack-media " + cls;
    if (part.images && part.images.length > 1) box.dataset.count = (part.image_index + 1) + "/" + part.images.length;
    else delete box.dataset.count;
  }
  function renderPack(g) {
    const box = $("pack-box");
    if (!box) return;
    const q = g.pack && g.pack.question;
    show(box, !!(q && q.live));
    if (!q || !q.live) { $("pack-media").dataset.items = ""; $("pack-media").replaceChildren(); return; }
    const a = q.answer;
    box.classList.toggle("is-answer", !!a);
    // the price it is played for once known (a cat's, a bid, «без риска»'s), never the cell's beside it
    $("pack-theme").textContent = q.theme + (q.nominal != null ? " · " + q.nominal : "");
    $("pack-comment").textContent = a ? (a.comment || "") : (q.theme_comment || "");
    $("pack-text").textContent = a ? (L.right_answer || "") + ": " + (a.answer || "") : (q.text || "");
    $("pack-answer-text").textContent = a ? (a.text || "") : "";
    $("pack-options").replaceChildren(...(a ? [] : (q.options || []).map((o) =>
      el("li", "pack-option", o.label + ". " + (o.text || (o.media || []).map((m) => m.name).join(", "))))));
    packPart(a || q, $("pack-media"), a ? "answer" : "question");
  }
  function renderFlash(flash) {
    const box = $("flash");
    if (!box) return;
    show(box, !!flash);
    if (flash) {
      box.className = "flash flash-" + flash.kind;
      box.replaceChildren(el("div", "big", flash.text), ...(flash.line ? [el("div", "line", flash.line)] : []));
    }
  }
  // the last race's record (docs/exports.md): each press in edge order, the rule that decided it
  function renderRace(race) {
    const box = $("race-box");
    if (!box) return;
    show(box, !!race);
    if (!race) return;
    $("race").replaceChildren(...race.presses.map((p) => el("li", "race-" + p.rule,
      [p.team, fmtGap(p.gap_ms), L["race_rule_" + p.rule] || p.rule]
        .concat(p.resolution_us > 0 ? ["±" + p.resolution_us + " µs"] : []).join(" · "))));
    const lot = $("race-lot");
    show(lot, !!race.tie);
    if (race.tie) lot.textContent = (L.race_seed || "{seed} {salt}").replace("{seed}", race.tie.seed).replace("{salt}", race.tie.salt);
  }
  // Each team's phone link (/play#t=…) with its QR code, a «new link» button, and the phones
  // joined with it: how well each one's clock is known, its delay, a mark past the limit.
  function qrCanvas(rows) {
    const c = el("canvas", "phone-qr");
    const n = rows.length, quiet = 3, px = 4, size = (n + 2 * quiet) * px;
    c.width = size; c.height = size;
    const ctx = c.getContext("2d");
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, size, size);
    ctx.fillStyle = "#000";
    rows.forEach((row, y) => { for (let x = 0; x < row.length; x++) if (row[x] === "1") ctx.fillRect((x + quiet) * px, (y + quiet) * px, px, px); });
    return c;
  }
  function renderPhones(p) {
    const box = $("phones-box");
    if (!box) return;
    show(box, !!p);
    if (!p) return;
    $("phone-wait").textContent = p.wait_ms > 0 ? fillIn(L.phone_wait, { ms: p.wait_ms }) : "";
    const list = $("phones");
    const want = p.teams.map((t) => t.url).join("|");
    if (list.dataset.urls !== want) {   // the links and their codes change only when renewed
      list.dataset.urls = want;
      list.replaceChildren(...p.teams.map((t) => {
        const card = el("div", "phone-team");
        card.dataset.button = t.button;
        if (t.color) card.style.setProperty("--team", t.color);
        const renew = el("button", "phone-renew", L.phone_renew || "");
        renew.type = "button";
        renew.addEventListener("click", () => renewLink(t.button));
        const link = el("a", "phone-link", t.url);
        link.href = t.url;
        link.target = "_blank";
        link.rel = "noreferrer";
        card.append(el("div", "phone-name", t.name), qrCanvas(t.qr), link, renew, el("ul", "phone-list"));
        return card;
      }));
    }
    p.teams.forEach((t) => {
      const card = list.querySelector('.phone-team[data-button="' + CSS.escape(t.button) + '"]');
      if (!card) return;
      card.querySelector(".phone-name").textContent = t.name;
      card.querySelector(".phone-list").replaceChildren(...(t.phones.length ? t.phones.map((ph) => {
        const parts = [ph.synced ? fillIn(L.phone_row, { bound: ph.bound_ms, delay: ph.delay_ms, rtt: ph.rtt_ms }) : (L.phone_unsynced || "")];
        if (ph.stalls) parts.push(fillIn(L.phone_stalls, { n: ph.stalls }));
        if (ph.over && ph.synced) parts.push(p.exclude_over_bound ? L.phone_over : L.phone_over_only);
        return el("li", "phone" + (ph.over ? " is-over" : ""), parts.join(" · "));
      }) : [el("li", "phone none", L.phone_none || "")]));
    });
  }
  async function renewLink(button) {
    const result = $("result");
    try {
      const r = await fetch("/api/phones", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Authorization": "Bearer " + decodeURIComponent(token) },
        body: JSON.stringify({ renew: button }),
      });
      result.textContent = r.ok ? (L.sent || "") : (L.refused || "") + ": " + (await r.text());
      result.className = "result " + (r.ok ? "ok" : "bad");
    } catch (e) {
      result.textContent = L.offline || "";
      result.className = "result bad";
    }
  }
  function renderHost(h) {
    renderPhones(h.phones);
    show($("notice"), !!h.notice);
    if ($("notice")) $("notice").textContent = h.notice || "";
    const entry = $("entry");
    show(entry, !!h.entry);
    if (h.entry) entry.replaceChildren(el("div", "title", h.entry.title), el("div", "text", h.entry.text + "▏"), el("div", "hint", h.entry.hint));
    // a game's host-only data: the question's text (an event file's, a package's) and its
    // answer, at the top of it or in its package's part
    const hg = h.game || {}, pack = hg.pack || {};
    const qtext = hg.question_text || pack.text || "";
    const answer = hg.answer || hg.answers || pack.answer;
    show($("answer-box"), !!(qtext || answer));
    show($("q-text-box"), !!qtext);
    $("q-text").textContent = qtext;
    show($("answer-line"), !!answer);
    $("answer").textContent = !answer ? "" : Array.isArray(answer) ? answer.join(" / ") : String(answer);
    // a package's answer content and comment, under the answer
    const extra = [pack.answer_text, pack.comment].filter((x) => x);
    if ($("answer-more")) $("answer-more").replaceChildren(...(answer ? extra.map((x) => el("div", "answer-line", x)) : []));
    renderRace(hg.race);
    const undo = $("undo");
    if (!h.undo) undo.textContent = L.undo_none || "";
    else undo.replaceChildren(...(h.undo.changes.length ? h.undo.changes.map((c) => el("div", "change", c.team + ": " + c.score + " → " + c.after))
      : [el("div", "change", "✓")]));
    const acts = $("actions");
    const want = h.actions.map((a) => a.action + (a.params ? "(" + a.params.map((p) => p.name).join(" ") + ")" : "")).join(",");
    if (acts.dataset.actions !== want) {
      acts.dataset.actions = want;
      const forms = $("forms");
      const open = forms.dataset.open || "";
      forms.replaceChildren();
      acts.replaceChildren(...h.actions.map((a) => {
        const b = el("button", "action action-" + a.action + (a.params ? " has-form" : ""), a.label + (a.params ? "…" : ""));
        b.type = "button";
        b.dataset.action = a.action;
        if (a.params) {
          const f = actionForm(a);
          forms.append(f);
          f.hidden = open !== a.action;
          b.addEventListener("click", () => toggleForm(a.action));
        } else if (a.confirm) {
          // an action that ends a stage: the first tap asks, only a second one within 3 s sends it
          b.addEventListener("click", () => {
            if (b.classList.contains("armed")) { disarm(b, a); send({ host: a.action }); return; }
            b.classList.add("armed");
            b.textContent = a.confirm;
            b.dataset.timer = String(setTimeout(() => disarm(b, a), CONFIRM_MS));
          });
        } else {
          b.addEventListener("click", () => send({ host: a.action }));
        }
        return b;
      }));
      if (!h.actions.some((a) => a.action === open && a.params)) forms.dataset.open = "";
      fitLabels();
    }
    $("keys").replaceChildren(...h.keys.map((k) => {
      const tr = el("tr");
      tr.append(el("td", "k", (k.key_labels || k.keys).join(", ")), el("td", "a", k.label));
      return tr;
    }));
  }
  // A label breaks between words only: a word wider than its button (a phone's narrow column,
  // «Дисквалификация…») makes that button's type smaller until it fits, never a broken word.
  function fitLabels() {
    document.querySelectorAll("#actions .action").forEach((b) => {
      b.style.fontSize = "";
      for (let k = 0.95; b.scrollWidth > b.clientWidth && k >= 0.65; k -= 0.05) b.style.fontSize = k.toFixed(2) + "em";
    });
  }
  window.addEventListener("resize", fitLabels);
  if (document.fonts) document.fonts.ready.then(fitLabels);
  const CONFIRM_MS = 3000;
  function disarm(b, a) {
    clearTimeout(Number(b.dataset.timer));
    b.classList.remove("armed");
    b.textContent = a.label;
  }
  // An action with parameters (rename, a line-up ...) is a small form: its button opens it.
  // Its fields are the action's declaration as the view model delivers it (docs/web.md): a
  // member field's choices are the teams or seats now, from the newest view model.
  function choices(action, name) {
    const h = (window.buzzer.last && window.buzzer.last.host) || {};
    const a = (h.actions || []).find((x) => x.action === action) || {};
    const p = (a.params || []).find((x) => x.name === name) || {};
    return p.choices || [];
  }
  function fillMembers(select) {
    const keep = select.value;
    select.replaceChildren(el("option", null, "—"), ...choices(select.form.dataset.action, select.name).map((m) => {
      const o = el("option", null, m.label);
      o.value = String(m.value);
      return o;
    }));
    select.firstChild.value = "";
    select.value = keep;
  }
  function toggleForm(action) {
    const forms = $("forms");
    const opening = forms.dataset.open !== action;
    forms.dataset.open = opening ? action : "";
    forms.querySelectorAll("form").forEach((f) => {
      f.hidden = !(opening && f.dataset.action === action);
      if (!f.hidden) {
        f.querySelectorAll("select[data-kind=member]").forEach(fillMembers);
        const first = f.querySelector("select, input");
        if (first) first.focus();
      }
    });
  }
  function actionForm(a) {
    const f = el("form", "action-form");
    f.dataset.action = a.action;
    f.append(el("div", "form-title", a.label));
    a.params.forEach((p) => {
      const label = el("label", "field");
      label.append(el("span", "field-name", L["param_" + p.name] || p.name));
      let input;
      if (p.kind === "member") {
        input = el("select");
        input.dataset.kind = "member";
      } else {
        input = el("input");
        input.type = "text";
        if (p.kind === "number") { input.inputMode = "numeric"; input.pattern = (p.min >= 0 ? "" : "-?") + "[0-9]+"; }
        if (p.kind === "real") { input.inputMode = "decimal"; input.pattern = "-?[0-9]+([.,][0-9]+)?"; }
        if (p.max_len) input.maxLength = p.max_len;
        input.autocomplete = "off";
      }
      if (p.min !== undefined) input.dataset.min = String(p.min);
      if (p.max !== undefined) input.dataset.max = String(p.max);
      input.name = p.name;
      input.dataset.kind = p.kind;
      input.required = !!p.required;
      label.append(input);
      f.append(label);
    });
    const go = el("button", "send", L.send || "OK");
    go.type = "submit";
    f.append(go);
    f.addEventListener("submit", (ev) => {
      ev.preventDefault();
      // the declared bounds, as the server checks them: a number beyond them is not sent
      let inBounds = true;
      f.querySelectorAll("input").forEach((i) => {
        const n = Number(i.value.trim().replace(",", "."));
        const out = i.value.trim() !== "" && ((i.dataset.min !== undefined && n < Number(i.dataset.min))
          || (i.dataset.max !== undefined && n > Number(i.dataset.max)));
        i.setCustomValidity(out ? (L.out_of_range || "") : "");
        if (out) inBounds = false;
      });
      if (!inBounds) { f.reportValidity(); return; }
      const body = { host: a.action };
      f.querySelectorAll("select, input").forEach((i) => {
        const v = i.value.trim();
        if (!v) return;
        const numeric = /^-?[0-9]+([.,][0-9]+)?$/.test(v);
        const kind = i.dataset.kind;
        body[i.name] = kind === "member" || kind === "number" || kind === "real" || (kind === "player" && numeric)
          ? Number(v.replace(",", ".")) : v;
      });
      send(body).then((ok) => {
        if (!ok) return;
        f.reset();
        toggleForm(a.action);
      });
    });
    return f;
  }
  function render(vm) {
    window.buzzer.last = vm;
    const g = (vm.audience && vm.audience.game) || {};
    renderHeader(vm, g);
    renderHolder(g);
    renderCountdown(g);
    show($("paused"), !!g.paused);
    if ($("paused")) $("paused").textContent = L.paused || "";
    renderTeams(g);
    renderPresses(g);
    renderStandings(g);
    renderPack(g);
    renderFlash(vm.audience && vm.audience.flash);
    if (page === "host") {
      // the host's sections only with the host's part (never empty headings under a refused key)
      document.querySelectorAll(".host-only").forEach((s) => show(s, !!vm.host));
      if (vm.host) renderHost(vm.host);
    }
    document.body.dataset.seq = String(vm.seq);
  }
  function status(text, ok) {
    const c = $("conn");
    if (c) { c.textContent = text; c.classList.toggle("ok", !!ok); }
  }
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/api/stream");
    ws.onopen = () => {
      retry = 500;
      status(L.connected || "", true);
      if (page === "host" && token) ws.send(JSON.stringify({ token: decodeURIComponent(token) }));
    };
    ws.onmessage = (ev) => {
      let vm;
      try { vm = JSON.parse(ev.data); } catch (e) { return; }
      if (vm.error) {
        if (page === "host") { show($("auth"), true); $("auth").textContent = L.bad_token || vm.error; }
        return;
      }
      if (typeof vm.seq !== "number") return;
      seq = vm.seq;  // every message is a full snapshot: a missed one is never needed
      render(vm);
    };
    ws.onclose = () => {
      status(L.offline || "", false);
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    };
  }
  async function send(body) {
    const result = $("result");
    try {
      const r = await fetch("/api/host", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Authorization": "Bearer " + decodeURIComponent(token) },
        body: JSON.stringify(body),
      });
      // the API's own reason is English (for programs): the host reads the page's language,
      // and the reason stays in the tooltip
      const why = r.ok ? "" : await r.text();
      const said = { 401: L.bad_token, 403: L.foreign_origin, 429: L.too_fast, 422: L.not_now,
                     400: L.bad_request, 413: L.bad_request }[r.status];
      result.textContent = r.ok ? (L.sent || "") : (L.refused || "") + ": " + (said || why);
      result.title = why;
      result.className = "result " + (r.ok ? "ok" : "bad");
      return r.ok;
    } catch (e) {
      result.textContent = L.offline || "";
      result.className = "result bad";
      return false;
    }
  }
  if (page === "host" && !token) { show($("auth"), true); $("auth").textContent = L.no_token || ""; }
  status(L.waiting || "", false);
  connect();
})();
