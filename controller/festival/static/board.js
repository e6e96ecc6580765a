// The festival board's page (docs/festival.md): read-only. One WebSocket (/api/stream)
// brings the board -- every hall's game, question, leader and table rows (place, name, points,
// tags in words, whatever the game) -- on connect and after every change, each with its seq;
// the page reconnects by itself.  A card fits its table in its share of the window: when the
// rows do not fit, it keeps the leader and every tagged row and says «ещё N» (a button: the whole
// table in the card, until «свернуть»).
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent || "{}");
  const $ = (id) => document.getElementById(id);
  let seq = -1, retry = 500;
  window.board = { seq: () => seq, last: null };
  $("title").textContent = L.board_title || "";

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const MIN_CARD_EM = 16;   // a card is never fitted smaller (a phone: the page scrolls between cards)
  const opened = new Set();  // cards whose whole table the viewer asked for («ещё N»)
  const keyOf = (c) => c.competition + "\u0000" + c.hall;

  function words(key, n) { return (L[key] || "").replace("{n}", String(n)); }
  // The rows a card with `room` lines for its table shows, and how many it leaves out: all when
  // they fit (room null), else those the board ranks first (the leader, every tagged row, then
  // by place: board.keep_order), the last line saying «ещё N» -- the window's rule.
  function shown(rows, room) {
    if (room === null || rows.length <= room) return [rows, 0];
    const cap = Math.max(room - 1, 0);
    const kept = rows.filter((r) => r.rank < cap);
    return [kept, rows.length - kept.length];
  }
  function fill(table, c, room) {
    const open = opened.has(keyOf(c));
    const [rows, left] = open ? [c.standings, 0] : shown(c.standings, room);
    const trs = rows.map((r) => {
      const tr = el("tr", "row" + ((r.tags || []).length ? " tagged" : ""));
      tr.dataset.place = r.place;
      tr.append(el("td", "place", r.place), el("td", "name", r.name), el("td", "points", r.points),
                el("td", "tags", (r.tags || []).join(", ")));
      return tr;
    });
    if (left || open) {
      const tr = el("tr", "more-row"), td = el("td");
      const button = el("button", "more", open ? L.board_less : words("board_more", left));
      button.type = "button";
      button.addEventListener("click", () => {
        if (open) opened.delete(keyOf(c)); else opened.add(keyOf(c));
        if (window.board.last) render(window.board.last);
      });
      td.append(button);
      td.colSpan = 3;
      tr.append(el("td"), td);
      trs.push(tr);
    }
    table.replaceChildren(...trs);
  }
  function card(c) {
    const box = el("section", "card" + (c.game ? "" : " is-waiting") + (c.finished ? " is-finished" : ""));
    box.dataset.hall = c.hall;
    box.dataset.competition = c.competition;
    const head = c.lines.length - c.standings.length;   // the board's lines, then its table's rows
    c.lines.slice(0, head).forEach((line, i) => {
      const node = el(i === 0 ? "h2" : "div", "line c-" + line.colour, line.text);
      if (c.leader && i === head - 1) node.classList.add("leader");
      box.append(node);
    });
    if (c.standings.length) {
      const table = el("table", "standings");
      fill(table, c, null);
      box.append(table);
    }
    return box;
  }
  function natural(box) {   // the card's height as its content needs it (its grid row may stretch it)
    const last = box.lastElementChild;
    const pad = parseFloat(getComputedStyle(box).paddingBottom) || 0;
    return last ? last.getBoundingClientRect().bottom - box.getBoundingClientRect().top + pad : 0;
  }
  // The board fits the window: while the cards' grid is taller than the window, the tallest row of
  // cards gives up a line of its table (never a card below MIN_CARD_EM: a phone scrolls instead).
  function fitAll(boxes, cards) {
    const grid = $("cards"), cs = getComputedStyle(grid);
    const gap = parseFloat(cs.rowGap) || 0;
    const least = MIN_CARD_EM * (parseFloat(getComputedStyle(document.body).fontSize) || 16);
    const avail = window.innerHeight - (grid.getBoundingClientRect().top + window.scrollY)
      - (parseFloat(cs.paddingTop) || 0) - (parseFloat(cs.paddingBottom) || 0);
    const rooms = cards.map(() => null);
    const tables = boxes.map((box) => box.querySelector(".standings"));
    const lines = (i) => rooms[i] === null ? cards[i].standings.length : rooms[i];
    const can = (i, h) => tables[i] && !opened.has(keyOf(cards[i])) && lines(i) > 1 && h > least;
    for (let step = 0; step < 2000; step++) {
      const rows = new Map();   // a grid row (its top) -> its cards
      boxes.forEach((box, i) => {
        const top = Math.round(box.offsetTop);
        if (!rows.has(top)) rows.set(top, []);
        rows.get(top).push(i);
      });
      let need = gap * (rows.size - 1), tallest = null, most = 0;
      const heights = [];
      for (const row of rows.values()) {
        const hs = row.map((i) => natural(boxes[i]));
        const h = Math.max(...hs);
        need += h;
        heights.push(h);
        const tall = row.filter((i, k) => hs[k] >= h - 0.5);
        if (h > most && tall.every((i) => can(i, h))) { tallest = tall; most = h; }
      }
      if (need <= avail + 0.5 || tallest === null) return;
      const next = Math.max(0, ...heights.filter((h, k) => k !== heights.indexOf(most)));
      // as many lines at once as take it down to the next row's height or the window (at least one)
      tallest.forEach((i) => {
        const tr = tables[i].querySelector("tr");
        const rowH = (tr && tr.getBoundingClientRect().height) || most;
        const drop = Math.floor(Math.min(need - avail, most - next) / rowH);
        rooms[i] = Math.max(1, lines(i) - Math.max(1, drop));
        fill(tables[i], cards[i], rooms[i]);
      });
    }
  }
  function render(b) {
    $("title").textContent = b.title || L.board_title || "";
    $("conn").textContent = b.problem || (b.connected ? "" : "…");
    $("conn").classList.toggle("bad", !!b.problem);
    $("refused").textContent = (b.refused && b.refused.text) || "";
    const cards = b.cards || [];
    if (!cards.length) {
      $("cards").replaceChildren(el("p", "empty", L.board_no_games || ""));
      return;
    }
    const boxes = cards.map(card);
    $("cards").replaceChildren(...boxes);
    fitAll(boxes, cards);
  }
  document.fonts.ready.then(() => { if (window.board.last) render(window.board.last); });   // measured anew
  let resizing = false;
  window.addEventListener("resize", () => {
    if (resizing) return;
    resizing = true;
    requestAnimationFrame(() => { resizing = false; if (window.board.last) render(window.board.last); });
  });
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/stream");
    ws.onopen = () => { retry = 500; };
    ws.onmessage = (m) => {
      let b;
      try { b = JSON.parse(m.data); } catch (e) { return; }
      if (typeof b.seq !== "number" || b.seq === seq) return;
      seq = b.seq;
      window.board.last = b;
      render(b);
    };
    ws.onclose = () => {
      $("conn").textContent = "…";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    };
  }
  connect();
})();
