// The runner's web console (docs/guide/14-running-services.md, "The web console"). Plain
// JavaScript, no build step. It calls only the operator API (/api/v1/...). Every string from the
// API reaches the page as text (textContent, append(string)), never as markup. The admin token
// lives in a variable of this script: never in a cookie, storage or the URL.
'use strict';

(() => {
  const POLL_MS = 2000;
  const RATE_POINTS = 60; // two minutes at one sample every 2 s

  let token = '';
  let serverReadOnly = false;
  let groups = [];
  let shownGroup = null; // the group whose dead letters are listed
  let shownCursor = null;
  let discarding = null; // the group the discard dialog is about
  const samples = []; // {t (s), handled, published}: the counters as polled
  const rates = []; // {handled, published}: per second between two samples

  const byId = (id) => document.getElementById(id);
  const byTest = (name) => document.querySelector(`[data-test="${name}"]`);

  // An element with `props` (className, text, data: {...}, attrs: {...}, on: {event: fn}) and
  // children (elements or strings; a string becomes a text node).
  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    if (props.className) node.className = props.className;
    if (props.text !== undefined) node.textContent = String(props.text);
    for (const [key, value] of Object.entries(props.data || {})) node.dataset[key] = value;
    for (const [key, value] of Object.entries(props.attrs || {})) node.setAttribute(key, value);
    for (const [event, fn] of Object.entries(props.on || {})) node.addEventListener(event, fn);
    node.append(...children);
    return node;
  }

  function setStatus(text, isError = false) {
    const status = byTest('status');
    status.textContent = text;
    status.classList.toggle('error', isError);
  }

  // The API's answer as JSON; an Error carrying the status and the API's error text otherwise.
  async function api(path, body) {
    const options = { cache: 'no-store', credentials: 'omit', headers: {} };
    if (body !== undefined) {
      options.method = 'POST';
      options.headers['Content-Type'] = 'application/json';
      if (token) options.headers.Authorization = `Bearer ${token}`;
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    let json = null;
    try {
      json = await response.json();
    } catch (_) {
      json = null;
    }
    if (!response.ok) {
      const error = new Error((json && json.error) || `HTTP ${response.status}`);
      error.status = response.status;
      throw error;
    }
    return json;
  }

  function explain(error) {
    if (error.status === 401) return `the token was refused: ${error.message}`;
    if (error.status === 403) return `read-only: ${error.message}`;
    return error.message;
  }

  const canWrite = () => token !== '' && !serverReadOnly;

  function showMode() {
    const mode = byTest('mode');
    mode.textContent = serverReadOnly
      ? 'read-only (the service has no admin token)'
      : token ? 'token set' : 'read-only';
    mode.classList.toggle('write', canWrite());
    byTest('token').disabled = serverReadOnly;
  }

  // ---- overview: backlog, breakers, rates ------------------------------------------------------
  function showOverview(overview) {
    byTest('service').textContent = overview.service || '';
    document.title = `Whizbang · ${overview.service || 'console'}`;
    const backlog = overview.backlog || {};
    byTest('backlog-outbox').textContent = String(backlog.outbox ?? '–');
    byTest('backlog-inbox').textContent = String(backlog.inbox ?? '–');
    byTest('backlog-perspectives').textContent = String(backlog.perspectives ?? '–');
    byTest('dead-letter-count').textContent = String(overview.dead_letters ?? '–');
    if (serverReadOnly !== Boolean(overview.read_only)) {
      serverReadOnly = Boolean(overview.read_only);
      showMode();
      showGroups();
    }
    showBreakers(overview.breakers || []);
    addSample(overview.handled_total, overview.published_total);
  }

  function showBreakers(breakers) {
    byId('breakers-body').replaceChildren(
      ...breakers.map((b) =>
        el('tr', { data: { test: 'breaker-row' } },
          el('td', { text: b.kind ?? '' }),
          el('td', { text: b.name ?? '' }),
          el('td', { text: b.state ?? '', className: `state-${b.state}` }),
          el('td', { text: b.failures ?? '', className: 'num' }),
          el('td', { text: b.open_until ?? '' }))));
    byId('breakers-empty').hidden = breakers.length > 0;
    byTest('breakers').hidden = breakers.length === 0;
  }

  function addSample(handled, published) {
    if (typeof handled !== 'number' || typeof published !== 'number') return;
    const now = performance.now() / 1000;
    const last = samples[samples.length - 1];
    samples.push({ t: now, handled, published });
    if (samples.length > 2) samples.shift();
    if (last && now > last.t) {
      // A counter that went down (a restarted process) counts as no work, not negative work.
      rates.push({
        handled: Math.max(0, handled - last.handled) / (now - last.t),
        published: Math.max(0, published - last.published) / (now - last.t),
      });
      if (rates.length > RATE_POINTS) rates.shift();
      const current = rates[rates.length - 1];
      byTest('rate-handled').textContent = current.handled.toFixed(1);
      byTest('rate-published').textContent = current.published.toFixed(1);
    }
    drawRates();
  }

  function drawRates() {
    const canvas = byTest('rate-chart');
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth || canvas.width;
    const height = canvas.clientHeight || canvas.height;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const g = canvas.getContext('2d');
    g.scale(ratio, ratio);
    g.clearRect(0, 0, width, height);
    const style = getComputedStyle(document.documentElement);
    const top = Math.max(1, ...rates.map((r) => Math.max(r.handled, r.published))) * 1.15;
    const pad = { left: 36, right: 8, top: 8, bottom: 8 };
    const x = (i) => pad.left + (i / (RATE_POINTS - 1)) * (width - pad.left - pad.right);
    const y = (v) => height - pad.bottom - (v / top) * (height - pad.top - pad.bottom);
    g.strokeStyle = style.getPropertyValue('--line');
    g.fillStyle = style.getPropertyValue('--muted');
    g.font = '11px system-ui, sans-serif';
    g.lineWidth = 1;
    for (const fraction of [0, 0.5, 1]) {
      const value = (top / 1.15) * fraction;
      g.beginPath();
      g.moveTo(pad.left, y(value));
      g.lineTo(width - pad.right, y(value));
      g.stroke();
      g.fillText(value.toFixed(value < 10 ? 1 : 0), 4, y(value) + 4);
    }
    const offset = RATE_POINTS - rates.length;
    for (const [key, color] of [['handled', '--handled'], ['published', '--published']]) {
      g.strokeStyle = style.getPropertyValue(color);
      g.lineWidth = 2;
      g.beginPath();
      rates.forEach((r, i) => (i === 0 ? g.moveTo : g.lineTo).call(g, x(offset + i), y(r[key])));
      g.stroke();
    }
  }

  // ---- dead letters by failure -----------------------------------------------------------------
  function actionButton(label, test, onClick, className = '') {
    const button = el('button', {
      text: canWrite() ? label : `${label} (read-only)`,
      className,
      data: { test },
      attrs: { type: 'button' },
      on: { click: onClick },
    });
    button.disabled = !canWrite();
    if (!canWrite()) button.title = 'Type the admin token above to act';
    return button;
  }

  // Rebuilt only when the groups or the mode changed: a row replaced under the pointer would
  // swallow the operator's click.
  let shownGroupsKey = '';
  function showGroups() {
    const key = JSON.stringify([canWrite(), groups]);
    if (key === shownGroupsKey) return;
    shownGroupsKey = key;
    byId('groups-body').replaceChildren(
      ...groups.map((group) =>
        el('tr', { data: { test: 'group-row', group: group.group } },
          el('td', { text: group.source ?? '' }),
          el('td', { text: group.target ?? '' }),
          el('td', { text: group.message_type ?? '' }),
          el('td', { text: group.reason ?? '' }),
          el('td', { text: group.error ?? '', className: 'error' }),
          el('td', { text: group.count ?? '', className: 'num', data: { test: 'group-count' } }),
          el('td', { text: when(group.last_at), className: 'when' }),
          el('td', { className: 'actions' },
            actionButton('Requeue', 'group-requeue', () => requeue(group), 'primary'),
            actionButton('Dry run', 'group-dry-run', () => dryRun(group)),
            actionButton('Discard', 'group-discard', () => askDiscard(group), 'danger'),
            el('button', {
              text: 'Show', data: { test: 'group-show' }, attrs: { type: 'button' },
              on: { click: () => showLetters(group) },
            })))));
    byId('groups-empty').hidden = groups.length > 0;
    byTest('groups').hidden = groups.length === 0;
  }

  function when(text) {
    if (!text) return '';
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? String(text) : date.toLocaleString();
  }

  let busy = false; // one action at a time: a double click requeues once
  async function act(description, work) {
    if (!canWrite() || busy) return;
    busy = true;
    setStatus(`${description}…`);
    try {
      setStatus(await work());
    } catch (error) {
      setStatus(`${description} failed: ${explain(error)}`, true);
    } finally {
      busy = false;
    }
    await refresh();
  }

  function requeue(group) {
    return act('requeue', async () => {
      const answer = await api('/api/v1/dead-letters/requeue', { group: group.group });
      return `requeued ${answer.requeued} message(s) of ${group.message_type}`;
    });
  }

  function dryRun(group) {
    return act('dry run', async () => {
      const answer = await api('/api/v1/dead-letters/requeue', { group: group.group, dry_run: true });
      const rows = answer.would_requeue || [];
      byId('dry-run-body').replaceChildren(
        ...rows.map((row) =>
          el('tr', { data: { test: 'dry-run-row' } },
            el('td', { text: row.id ?? '', className: 'id' }),
            el('td', { text: row.message_type ?? '' }),
            el('td', { text: row.target ?? '' }),
            el('td', { text: (row.would_fire || []).join(', ') || '—' }),
            el('td', { text: (row.already_fired || []).join(', ') || '—' }))));
      byTest('dry-run').hidden = false;
      return `dry run: ${rows.length} message(s) would be requeued; nothing changed`;
    });
  }

  function askDiscard(group) {
    if (!canWrite()) return;
    discarding = group;
    byId('discard-what').textContent = `${group.count} ${group.message_type} dead letter(s)`;
    byTest('discard-reason').value = '';
    byTest('discard-dialog').showModal();
  }

  function discard(reason) {
    const group = discarding;
    discarding = null;
    byTest('discard-dialog').close();
    return act('discard', async () => {
      const answer = await api('/api/v1/dead-letters/discard', { group: group.group, reason });
      return `discarded ${answer.discarded} message(s) of ${group.message_type}`;
    });
  }

  // One group's dead letters: the list filtered by the group's parts, then by its key (the error
  // filter matches a substring, so other groups' rows may come too).
  async function showLetters(group, cursor = null) {
    const query = new URLSearchParams({ limit: '200' });
    for (const key of ['source', 'target', 'message_type', 'reason', 'error']) {
      if (group[key]) query.set(key, group[key]);
    }
    if (cursor) query.set('cursor', cursor);
    try {
      const answer = await api(`/api/v1/dead-letters?${query}`);
      const rows = (answer.items || []).filter((item) => item.group === group.group).map((item) =>
        el('tr', { data: { test: 'letter-row' } },
          el('td', { text: item.id ?? '', className: 'id' }),
          el('td', { text: item.stream_id ?? '', className: 'id' }),
          el('td', { text: item.attempts ?? '', className: 'num' }),
          el('td', { text: item.error ?? '', className: 'error' }),
          el('td', { text: when(item.dead_lettered_at), className: 'when' })));
      if (cursor) byId('letters-body').append(...rows);
      else byId('letters-body').replaceChildren(...rows);
      shownGroup = group;
      shownCursor = answer.next_cursor || null;
      byId('letters-title').textContent = `${group.target} · ${group.message_type}`;
      byTest('letters-more').hidden = !shownCursor;
      byTest('letters').hidden = false;
    } catch (error) {
      setStatus(`listing the dead letters failed: ${explain(error)}`, true);
    }
  }

  // ---- polling ---------------------------------------------------------------------------------
  let polls = 0;
  async function refresh() {
    try {
      const [overview, grouped] = await Promise.all([
        api('/api/v1/overview'),
        api('/api/v1/dead-letters/groups'),
      ]);
      showOverview(overview);
      groups = grouped.groups || [];
      showGroups();
      if (shownGroup && !groups.some((g) => g.group === shownGroup.group)) {
        shownGroup = null;
        byTest('letters').hidden = true;
      }
      // For tests and the curious: how many refreshes have completed.
      document.body.dataset.polls = String(++polls);
    } catch (error) {
      setStatus(`the service did not answer: ${explain(error)}`, true);
    }
  }

  async function poll() {
    await refresh();
    setTimeout(poll, POLL_MS);
  }

  function start() {
    byTest('token-form').addEventListener('submit', (event) => {
      event.preventDefault();
      token = byTest('token').value.trim();
      byTest('token').value = '';
      showMode();
      showGroups();
      setStatus(token ? 'token set: actions enabled' : 'no token: read-only');
    });
    byId('token-forget').addEventListener('click', () => {
      token = '';
      showMode();
      showGroups();
      setStatus('token forgotten: read-only');
    });
    byId('discard-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const reason = byTest('discard-reason').value.trim();
      if (reason && discarding) discard(reason);
    });
    byId('discard-cancel').addEventListener('click', () => {
      discarding = null;
      byTest('discard-dialog').close();
    });
    byId('dry-run-close').addEventListener('click', () => (byTest('dry-run').hidden = true));
    byId('letters-close').addEventListener('click', () => {
      shownGroup = null;
      byTest('letters').hidden = true;
    });
    byTest('letters-more').addEventListener('click', () => {
      if (shownGroup && shownCursor) showLetters(shownGroup, shownCursor);
    });
    showMode();
    poll();
  }

  start();
})();
