// iofleet serve's page: reads the JSON API with the bearer token kept in sessionStorage (no
// cookies: nothing here can be forged by another site). Every value from the API is set as
// text, never as HTML.
'use strict';

const TOKEN_KEY = 'iofleet.token';
let charts = [];
let trendSuite = '';

function token() { return sessionStorage.getItem(TOKEN_KEY) || ''; }

async function api(method, path) {
  const headers = {};
  if (token()) headers['Authorization'] = 'Bearer ' + token();
  const answer = await fetch(path, { method, headers, cache: 'no-store' });
  if (answer.status === 401) {
    showLogin(true);
    throw new Error('the token is needed');
  }
  const body = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(body.error || ('HTTP ' + answer.status));
  return body;
}

function showLogin(show) {
  document.getElementById('login').hidden = !show;
  document.getElementById('forget').hidden = !token();
}

function say(text) { document.getElementById('status').textContent = text; }

function utc(ns) {
  if (!ns) return '';
  return new Date(ns / 1e6).toISOString().replace('T', ' ').slice(0, 19);
}

function seconds(s) {
  if (s === undefined || s === null) return '';
  if (s < 120) return s.toFixed(1) + ' s';
  if (s < 7200) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text === undefined || text === null ? '' : String(text);
  if (cls) td.className = cls.replace(/ /g, '-');
  return td;
}

function button(td, text, action) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      await action();
      await refresh();
    } catch (e) {
      say(text + ': ' + e.message);
    } finally {
      b.disabled = false;
    }
  });
  td.appendChild(b);
  return b;
}

function labelsText(labels) {
  return Object.entries(labels || {}).map(([k, v]) => k + '=' + v).join(' ');
}

function renderSuites(suites) {
  const body = document.querySelector('#suites tbody');
  body.replaceChildren();
  const select = document.getElementById('trend-suite');
  const names = suites.map(s => s.name);
  if (select.options.length !== names.length || names.some((n, i) => select.options[i].value !== n)) {
    select.replaceChildren(...names.map(n => new Option(n, n)));
    if (!names.includes(trendSuite)) trendSuite = names[0] || '';
    select.value = trendSuite;
  }
  for (const s of suites) {
    const row = body.insertRow();
    row.dataset.suite = s.name;
    cell(row, s.name);
    cell(row, s.fleet);
    cell(row, s.workload);
    cell(row, s.schedule || (s.every_seconds ? 'every ' + seconds(s.every_seconds) : 'on demand'));
    cell(row, s.paused ? 'paused' : utc(s.next_run_unix_ns));
    cell(row, s.running ? 'running ' + s.running : (s.queued ? 'queued ' + s.queued : ''));
    const last = s.last_run;
    cell(row, last ? last.status + (last.verdict ? ', ' + last.verdict : '') : '', last ? (last.verdict === 'regression' ? 'regression' : last.status) : '');
    const actions = row.insertCell();
    button(actions, 'Run now', () => api('POST', '/api/v1/suites/' + encodeURIComponent(s.name) + '/runs')).className = 'run-now';
    button(actions, s.paused ? 'Resume' : 'Pause',
           () => api('POST', '/api/v1/suites/' + encodeURIComponent(s.name) + (s.paused ? '/resume' : '/pause')));
  }
}

function renderRuns(runs) {
  const body = document.querySelector('#runs tbody');
  body.replaceChildren();
  for (const r of runs) {
    const row = body.insertRow();
    row.dataset.run = r.run_id;
    cell(row, r.run_id);
    cell(row, r.suite);
    cell(row, r.state);
    cell(row, r.status, r.status);
    cell(row, r.verdict, r.verdict);
    cell(row, r.reason);
    cell(row, utc(r.queued_at_unix_ns));
    cell(row, seconds(r.duration_seconds));
    cell(row, labelsText(r.labels));
    const report = row.insertCell();
    if (r.report_url) {
      const a = document.createElement('a');
      a.href = r.report_url;
      a.textContent = 'report.html';
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      report.appendChild(a);
    }
    const actions = row.insertCell();
    if (r.state === 'queued' || r.state === 'running') {
      button(actions, 'Cancel', () => api('POST', '/api/v1/runs/' + encodeURIComponent(r.run_id) + '/cancel')).className = 'cancel';
    }
    if (r.error) row.title = r.error;
  }
}

function formatValue(value, unit) {
  if (unit === 'bytes_per_sec') return (value / 1048576).toFixed(1) + ' MiB/s';
  if (unit === 'seconds') return value < 1e-3 ? (value * 1e6).toFixed(1) + ' us' : value < 1 ? (value * 1e3).toFixed(2) + ' ms' : value.toFixed(2) + ' s';
  return value.toFixed(1);
}

function renderTrends(history) {
  for (const c of charts) c.destroy();
  charts = [];
  const box = document.getElementById('trends');
  box.replaceChildren();
  const haveCharts = typeof Chart !== 'undefined';
  document.getElementById('charts-missing').hidden = haveCharts;
  if (!history.series.length) {
    const p = document.createElement('p');
    p.textContent = 'No succeeded run of ' + history.suite + ' in the history yet.';
    box.appendChild(p);
    return;
  }
  for (const s of history.series) {
    const div = document.createElement('div');
    div.className = 'chart';
    const h = document.createElement('h3');
    h.textContent = s.step + (s.point ? ' @' + s.point : '') + ': ' + s.figure + ' (' + s.better + ' is better)';
    div.appendChild(h);
    box.appendChild(div);
    const labels = s.points.map(p => utc(p.started_at_unix_ns).slice(0, 16));
    const values = s.points.map(p => p.value);
    const changes = new Set(s.change_points.map(c => c.index));
    if (!haveCharts) {
      const table = document.createElement('table');
      for (let i = 0; i < values.length; i++) {
        const row = table.insertRow();
        cell(row, labels[i]);
        cell(row, formatValue(values[i], s.unit));
        cell(row, changes.has(i) ? 'change point' : '');
      }
      div.appendChild(table);
      continue;
    }
    const canvas = document.createElement('canvas');
    div.appendChild(canvas);
    charts.push(new Chart(canvas, {
      type: 'line',
      data: {
        labels,
        datasets: [{
          label: s.figure,
          data: values,
          borderColor: '#3568d4',
          pointRadius: values.map((_, i) => changes.has(i) ? 7 : 2),
          pointStyle: values.map((_, i) => changes.has(i) ? 'triangle' : 'circle'),
          pointBackgroundColor: values.map((_, i) => changes.has(i) ? '#c62828' : '#3568d4'),
          tension: 0,
        }],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        plugins: { legend: { display: false },
                   tooltip: { callbacks: { label: ctx => formatValue(ctx.parsed.y, s.unit) +
                                                         (changes.has(ctx.dataIndex) ? ' (change point)' : '') } } },
        scales: { y: { ticks: { callback: v => formatValue(v, s.unit) } } },
      },
    }));
  }
}

let trendsShown = '';
async function refresh() {
  try {
    const [suites, runs] = await Promise.all([api('GET', '/api/v1/suites'), api('GET', '/api/v1/runs?last=100')]);
    renderSuites(suites.suites);
    renderRuns(runs.runs);
    if (trendSuite) {
      const history = await api('GET', '/api/v1/suites/' + encodeURIComponent(trendSuite) + '/history');
      const key = JSON.stringify(history.series);
      if (key !== trendsShown) {
        renderTrends(history);
        trendsShown = key;
      }
    }
    showLogin(false);
    say('updated ' + new Date().toISOString().slice(11, 19) + ' UTC');
  } catch (e) {
    say(e.message);
  }
}

document.addEventListener('DOMContentLoaded', () => {
  document.getElementById('login-form').addEventListener('submit', ev => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, document.getElementById('token').value.trim());
    document.getElementById('token').value = '';
    refresh();
  });
  document.getElementById('forget').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    location.reload();
  });
  document.getElementById('trend-suite').addEventListener('change', ev => {
    trendSuite = ev.target.value;
    trendsShown = '';
    refresh();
  });
  refresh();
  setInterval(refresh, 5000);
});
