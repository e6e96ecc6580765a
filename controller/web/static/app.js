// The live pages of buzzer-controller: /, /overlay and /host (docs/web.md).
// One WebSocket (/api/stream) brings the view model: a full snapshot on connect, then every
// change with its seq. The host page sends its token over the socket (never in a URL) and
// host actions to POST /api/host with the token in the Authorization header.
// The pages draw the typed screen model only (controller/core/screen.py, docs/screen.md): the
// audience's widgets under audience.screen, the host's part under host.screen. They read no
// game's view and never ask which game is on: a new game needs nothing here.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent || "{}");
  const page = document.body.dataset.page;
  const $ = (id) => document.getElementById(id);
  const token = (location.hash.match(/token=([^&]+)/) || [])[1] || "";
  let seq = -1, ws = null, retry = 500, hostSeen = false;
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
  // The cards (teams, or numbered seats with their fouls as marks), the holder's card outlined.
  function renderTeams(scr) {
    const box = $("teams");
    if (!box) return;
    const numbered = !!scr.cards.numbered;
    box.replaceChildren(...scr.cards.items.map((c) => {
      const held = c.holder || c.active;
      const card = el("div", "team" + (held ? " is-holder" : "") + (c.dim ? " is-out" : ""));
      if (c.colour) card.style.setProperty("--team", c.colour);
      // the number the host types for it (ЧГК's «№1»), before the name as the projector draws it
      const name = (numbered && c.number !== null ? c.number + ". " : "") + (c.entry ? "№" + c.entry + " " : "")
        + (c.name || "");
      const score = numbered ? "\u26a0".repeat(c.dots || 0) : (c.score === null ? "" : c.score);
      card.append(el("span", "name", name), el("span", "score", score));
      // a programme's running total, every game so far (as the projector's card shows it)
      if (c.total !== null) {
        card.classList.add("has-total");
        card.append(el("span", "total", (L.total || "") + " " + c.total));
      }
      return card;
    }));
  }
  function renderHeader(scr) {
    const head = scr.header, title = $("title");
    // a series: which of its games is on («Игра 2 из 3»), after the game's title
    if (title) title.textContent = (head.title || "") + (head.series ? " · " + head.series : "");
    const q = head.question, parts = [];
    if (head.finished) {   // the end of the game: said as the projector says it
      // and what the final table leaves open (ЧГК: places shared, a shoot-out due)
      const note = scr.standings.note || "";
      // a programme's game before its last: that game is over, the next follows (standings.over)
      if ($("question")) $("question").textContent = (scr.standings.over || L.game_over || "") + (note ? " · " + note : "");
      return;
    }
    // the question as every screen names it («Вопрос 1/5»), its nominal, its theme
    if (q) parts.push(q.head);
    if (q && q.nominal) parts.push(String(q.nominal));
    const theme = (q && q.theme) || head.theme;
    if (theme) parts.push(theme);
    if ($("question")) $("question").textContent = parts.join(" · ");
  }
  function renderHolder(scr) {
    const box = $("holder");
    if (!box) return;
    const h = scr.cards.items.find((c) => c.holder);
    show(box, !!h);
    if (h) {
      box.replaceChildren(el("span", "label", L.answering || ""), el("span", "name", h.name));
      box.style.setProperty("--team", h.colour || "#888");
    }
  }
  function seconds(clock) {
    const left = Math.max(0, clock.remaining_ms || 0);
    return (left / 1000).toFixed(left < 10000 ? 1 : 0);
  }
  // The game's own countdown; without one, the clock beside it (a captain's timer) in its
  // place, with its name, as the projector shows it. That second clock never takes the
  // holder's place: beside the game's own countdown it is a small line of its own.
  function renderCountdown(scr) {
    const box = $("countdown");
    if (!box) return;
    const own = scr.main.clock, aside = scr.main.aside;
    const cd = own || aside;
    show(box, !!cd);
    if (!cd) return;
    const label = box.querySelector(".cd-label"), small = box.querySelector(".cd-captain");
    show(label, !own);
    if (label) label.textContent = !own ? (cd.label_text || "") : "";
    show(small, !!(own && aside));
    if (small) small.textContent = own && aside ? (aside.label_text || "") + " " + seconds(aside) : "";
    box.querySelector(".cd-number").textContent = seconds(cd);
    const total = cd.total_ms || 1;
    box.querySelector(".fill").style.width = Math.min(100, 100 * Math.max(0, cd.remaining_ms || 0) / total) + "%";
    box.classList.toggle("stopped", cd.running === false);
  }
  // The press order as the projector draws it: a number in its wave's race, the gap to the
  // wave's first press in seconds (the catalog's unit), a tag for a press that did not count;
  // a line between waves, the earlier waves faint.
  function fmtGap(ms) {
    const s = Number(ms || 0) / 1000;
    return (L.gap_s || "{s}").replace("{s}", (s < 0 ? "\u2212" : "+") + Math.abs(s).toFixed(3));
  }
  function renderPresses(scr) {
    const box = $("presses-box"), list = $("presses");
    if (!box || !list) return;
    const presses = scr.presses.entries;
    // the host page keeps the box (and its height) from the start: the buttons under it never move
    const host = page === "host";
    show(box, presses.length > 0 || host);
    const wave = scr.presses.wave;
    let prev = null;
    if (host && !presses.length) { list.replaceChildren(el("li", "press press-none", L.presses_none || "")); return; }
    list.replaceChildren(...presses.map((p) => {
      const w = p.wave || 0;
      const li = el("li", "press" + (p.kind ? " press-" + p.kind : "") + (w === wave ? "" : " press-old")
        + (prev !== null && w !== prev ? " press-wave" : ""));
      prev = w;
      li.dataset.wave = String(w);
      // a tie within the stamps' uncertainty (a phone's press) says its ±N ms
      const tag = p.tag ? p.tag.text : (p.tie ? (p.tie_ms ? fillIn(L.tie_within, { ms: p.tie_ms }) : L.press_tie) : "");
      li.append(el("span", "place", p.number ? p.number + "." : "·"), el("span", "who", p.name || p.button),
        tag ? el("span", "tag", tag) : el("span", "gap", fmtGap(p.gap_ms)
          + (p.unc_ms ? " " + fillIn(L.press_unc || "±{ms}", { ms: p.unc_ms }) : "")));   // a phone's: how sure
      return li;
    }));
    if (host) {   // the host's box scrolls: the current wave's first press at its top
      const first = list.querySelector('.press[data-wave="' + wave + '"]');
      list.scrollTop = first ? first.offsetTop - list.offsetTop : 0;
    }
  }
  function renderStandings(scr) {
    const box = $("standings-box"), table = $("standings");
    if (!box || !table) return;
    const rows = scr.standings.rows;
    show(box, rows.length > 0);
    // the table's title as the projector says it («Итоги программы»), else the page's own word
    const head = box.querySelector("h2");
    if (head) head.textContent = scr.standings.title || L.standings || "";
    table.replaceChildren(...rows.map((r) => {
      const tr = el("tr");
      // a shared place as its range where the game names one («1–2»), as the projector shows it
      tr.append(el("td", "place", r.shared || r.place), el("td", "st-team", r.name), el("td", "points", r.points));
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
  function packPart(c, box, cls) {
    // the picture showing now, and every video and page (sounds play through the hall's speakers)
    const items = [];
    if (c.image) items.push(c.image);
    c.items.forEach((m) => { if (m.kind === "video" || m.kind === "html") items.push(m); });
    const want = items.map((m) => m.kind + ":" + (m.member || m.name)).join("|");
    if (box.dataset.items !== want) {   // a playing video is not restarted by the next snapshot
      box.dataset.items = want;
      box.replaceChildren(...items.map(mediaNode));
    }
    box.className = "pack-media " + cls;
    if (c.images > 1) box.dataset.count = (c.image_index + 1) + "/" + c.images;
    else delete box.dataset.count;
  }
  function renderPack(scr) {
    const box = $("pack-box");
    if (!box) return;
    const c = scr.main.content;
    show(box, !!c);
    if (!c) { $("pack-media").dataset.items = ""; $("pack-media").replaceChildren(); return; }
    const a = c.answer_shown;
    box.classList.toggle("is-answer", a);
    // the price it is played for once known (a cat's, a bid, «без риска»'s), never the cell's beside it
    $("pack-theme").textContent = c.theme + (c.nominal !== null ? " · " + c.nominal : "");
    $("pack-comment").textContent = a ? c.answer_comment : (c.theme_comment || "");
    $("pack-text").textContent = a ? (L.right_answer || "") + ": " + (c.answer || "") : c.text;
    $("pack-answer-text").textContent = a ? c.answer_text : "";
    $("pack-options").replaceChildren(...(a ? [] : c.options.map((o) =>
      el("li", "pack-option", o.label + ". " + (o.text || o.media.join(", "))))));
    packPart(c, $("pack-media"), a ? "answer" : "question");
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
      [p.name, fmtGap(p.gap_ms), L["race_rule_" + p.rule] || p.rule]
        .concat(p.resolution_us > 0 ? ["±" + p.resolution_us + " µs"] : [])
        .concat(p.uncertainty_ms ? [fillIn(L.press_unc || "±{ms}", { ms: p.uncertainty_ms })] : []).join(" · "))));
    // a tie in the projector's words («ничья ±24 мс»), then how it was decided: the draw it chose
    // with (its seed and salt), or the team order (no draw)
    const lot = $("race-lot");
    show(lot, !!race.tie);
    if (race.tie) {
      const won = race.presses.find((p) => p.rule === "tie_lot" || p.rule === "tie_order");
      const tie = race.within_ms ? fillIn(L.tie_within, { ms: race.within_ms }) : (L.press_tie || "");
      lot.textContent = fillIn(race.tie_rule === "order" ? L.race_order : L.race_lot,
        { tie: tie.charAt(0).toUpperCase() + tie.slice(1), winner: won ? won.name : "", seed: race.seed, salt: race.salt });
    }
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
    // a team that presses only with its phone link and has none joined (never a wired team)
    const vm = window.buzzer.last || {};
    const noPhone = ((vm.audience || {}).inputs || {}).no_phone || [];
    const names = noPhone.map((b) => (p.teams.find((t) => t.button === b) || { name: b }).name);
    const missing = $("phone-missing");
    show(missing, names.length > 0);
    if (missing) missing.textContent = names.length ? fillIn(L.phone_missing, { teams: names.join(", ") }) : "";
    const local = $("phone-local");
    show(local, !!p.local_only);   // 127.0.0.1 links: no phone opens them; how to bind is in the words
    if (local) local.textContent = p.local_only ? (L.phones_local_only || "") : "";
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
        // the old link stops working and the team's phones are cut off: a stray tap only asks,
        // a second one within 3 s renews (as every action that cannot be taken back)
        const idle = { label: L.phone_renew || "" };
        renew.addEventListener("click", () => {
          if (renew.classList.contains("armed")) { disarm(renew, idle); renewLink(t.button); return; }
          renew.classList.add("armed");
          renew.textContent = L.phone_renew_confirm || "";
          renew.dataset.timer = String(setTimeout(() => disarm(renew, idle), CONFIRM_MS));
        });
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
      // a wired team needs none (a team the screens say «Нет телефона» of does)
      }) : [el("li", "phone none", (t.wired && !noPhone.includes(t.button) ? L.phone_wired : L.phone_none) || "")]));
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
  let latestActions = {};
  function renderHost(h) {
    renderPhones(h.phones);
    show($("notice"), !!h.notice);
    if ($("notice")) $("notice").textContent = h.notice || "";
    const entry = $("entry");
    show(entry, !!h.entry);
    if (h.entry) entry.replaceChildren(el("div", "title", h.entry.title), el("div", "text", h.entry.text + "▏"), el("div", "hint", h.entry.hint));
    // the host's part of the screen: the question's text (an event file's, a package's) and
    // its answer, a package's answer content and comment under it, the last race's record
    const hs = h.screen || {};
    const qtext = hs.text || "";
    const answer = hs.answer;
    show($("answer-box"), !!(qtext || answer));
    show($("q-text-box"), !!qtext);
    $("q-text").textContent = qtext;
    show($("answer-line"), !!answer);
    $("answer").textContent = answer ? String(answer) : "";
    const extra = [hs.answer_text, hs.comment].filter((x) => x);
    if ($("answer-more")) $("answer-more").replaceChildren(...(answer ? extra.map((x) => el("div", "answer-line", x)) : []));
    renderRace(hs.race);
    const undo = $("undo");
    if (!h.undo) undo.textContent = L.undo_none || "";
    else undo.replaceChildren(...(h.undo.changes.length ? h.undo.changes.map((c) => el("div", "change", c.team + ": " + c.score + " → " + c.after))
      : [el("div", "change", "✓")]));
    const acts = $("actions");
    // the latest words of each action (a confirm's warning follows the game: places shared now)
    latestActions = Object.fromEntries(h.actions.map((a) => [a.action, a]));
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
            b.textContent = (latestActions[a.action] || a).confirm || a.confirm;
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
      // a key whose first press only asks says so, with the keys bound to it («Esc дважды»)
      const said = (k.key_labels || k.keys).join(", ");
      tr.append(el("td", "k", k.twice ? fillIn(L.key_twice || "{key}", { key: said }) : said), el("td", "a", k.label));
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
  // The labels are the language the pages' process was started with: a game started again in
  // another language (a restart with [language] changed) reloads the page for its words, once
  function sameLanguage(vm) {
    const lang = vm.lang, shown = document.documentElement.lang;
    if (!lang || !shown || lang === shown || shown === "__LANG__") return true;
    let tried = "";
    try { tried = sessionStorage.getItem("buzzer-lang-reload") || ""; } catch (e) { tried = lang; }
    if (tried === lang) return true;   // reloaded for it already: never a loop of reloads
    try { sessionStorage.setItem("buzzer-lang-reload", lang); } catch (e) { return true; }
    location.reload();
    return false;
  }
  function render(vm) {
    if (!sameLanguage(vm)) return;
    window.buzzer.last = vm;
    const scr = vm.audience.screen;
    renderHeader(scr);
    renderHolder(scr);
    renderCountdown(scr);
    show($("paused"), !!scr.header.paused);
    if ($("paused")) $("paused").textContent = L.paused || "";
    renderTeams(scr);
    renderPresses(scr);
    renderStandings(scr);
    renderPack(scr);
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
      // a host page left open after the host's token was renewed (F9): the host's part stops
      // coming; the page says its link is no longer valid instead of silently losing its buttons
      if (page === "host" && token) {
        if (vm.host) hostSeen = true;
        else if (hostSeen) { show($("auth"), true); $("auth").textContent = L.host_renewed || L.bad_token || ""; }
      }
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
