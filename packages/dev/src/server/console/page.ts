/**
 * The dev console's HTML and CSS. Small enough to live as strings; the
 * behaviour is in the script bundle (`packages/dev/src/console`, built to
 * `dist/console/console.js`).
 *
 * @module
 */

import { ADD_AGENT_HTML, TOKEN_ACTIONS_HTML, TOKEN_CSS } from './token-page.js';

/** Where the console is served (dev mode, loopback only). */
export const CONSOLE_PATH = '/_console/';

/** The console's page. Holds no data: everything is fetched by the script. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>AMS dev console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_PATH}console.css">
<script defer src="${CONSOLE_PATH}console.js"></script>
</head>
<body>
<header>
  <h1>AMS dev console</h1>
  <span id="user" class="muted">no user</span>
  <form id="sign-in-as"><input id="owner-email" type="email" autocomplete="off" placeholder="AMS_OWNER_EMAIL of ams dev bootstrap"> <button type="submit">Sign in as</button></form>
  <button id="new-user" type="button">New dev user</button>
</header>
<main>
  <section id="agents-panel">
    <h2>Agents</h2>
    <ul id="agents"></ul>
    <p class="muted" id="agents-hint">Create a dev user and give it an agent, or run <code>ams dev bootstrap</code> and sign in as its owner (<code>AMS_OWNER_EMAIL</code>): its agent shows here.</p>
    <button id="refresh-agents" type="button">Refresh</button>
    ${ADD_AGENT_HTML}
    <h2>Groups</h2>
    <ul id="groups"></ul>
    <button id="new-group" type="button" disabled>New group with these agents</button>
  </section>
  <section id="chat-panel">
    <div class="chat-head"><h2 id="chat-title">Chat</h2> <button id="show-timeline" type="button" disabled>Timeline</button></div>
    <p id="timeline-reason" class="reason" role="status" hidden></p>
    <aside id="inspector" class="drawer" aria-label="Event inspector" hidden></aside>
    <aside id="timeline" class="drawer" aria-label="Timeline of the conversation's deliveries" hidden></aside>
    <div id="group-bar" class="group-bar" hidden></div>
    <ol id="messages" aria-live="polite"></ol>
    <form id="composer">
      <input id="text" autocomplete="off" placeholder="Message (sealed in this browser)" disabled>
      <button id="send" type="submit" disabled>Send</button>
      <button id="stop-turn" type="button" disabled title="Stop the agent's running turn (sealed in this browser)">Stop</button>
      <label class="file-pick" title="Send a file, encrypted in this page">📎<input id="file" type="file"></label>
    </form>
  </section>
  <section id="service-panel">
    <h2>Service side <span id="feed-state" class="muted" data-state="off">feed: off</span></h2>
    <dl id="status"></dl>
    <h3>Delivery log <span id="log-count" class="muted"></span></h3>
    <div class="log-tools"><select id="log-filter" aria-label="Show"><option value="all">all</option><option value="delivered">delivered</option><option value="failed">failed</option><option value="pending">pending</option><option value="replayed">replayed</option></select> <input id="log-search" type="search" autocomplete="off" placeholder="Search event type or delivery id"></div>
    <table id="log"><thead><tr><th>event</th><th>status</th><th>attempts</th><th>latency / error</th><th>done</th><th></th></tr></thead><tbody></tbody></table>
    <h3>Requests to the owner <button id="refresh-requests" type="button">Refresh</button></h3>
    <ul id="requests" class="requests"></ul>
    <h3>Break things</h3>
    <p id="controls-reason" class="reason" role="status" hidden></p>
    <pre id="curl" class="curl"></pre>
    <div class="actions">
      <label>Advance time <input id="advance-ms" type="number" min="0" value="30000"> ms</label>
      <button id="advance" type="button">Advance</button>
      <label>Webhook <select id="fail-status"><option value="503">answers 503</option><option value="500">answers 500</option><option value="429">answers 429</option><option value="408">answers 408</option><option value="timeout">times out</option></select> for next <input id="fail-n" type="number" min="1" max="100" value="3"></label>
      <button id="fail" type="button">Fail deliveries</button>
      <span class="muted">Close the agent's WebSocket (it reconnects)</span>
      <button id="drop-ws" type="button">Drop WebSocket</button>
      <label>Governance <select id="governance-level"><option>none</option><option>L1</option><option>L2</option><option>L3</option></select></label>
      <button id="set-governance" type="button">Set level</button>
      <span class="muted">Deliver what is pending, mark ready</span>
      <button id="recover" type="button">Recover</button>
      <label>Webhook URL <input id="webhook-url" class="wide" type="url" autocomplete="off" placeholder="http://127.0.0.1:3000/webhook"></label>
      <span><button id="use-webhook" type="button">Use webhook</button> <button id="use-websocket" type="button">Use WebSocket</button></span>
      <span class="muted">Relation of the open chat</span>
      <span><button id="suspend-relation" type="button">Suspend</button> <button id="restore-relation" type="button">Restore</button></span>
      <label>System event <input id="event-type" class="wide" autocomplete="off" value="system.notice"> <input id="event-payload" class="wide" autocomplete="off" value='{"text":"hello from the console"}'></label>
      <button id="send-event" type="button">Send event</button>
    </div>
    ${TOKEN_ACTIONS_HTML}
  </section>
</main>
<footer><span id="connection" class="muted">offline</span> <span id="error" role="alert"></span></footer>
</body>
</html>
`;

/** The console's style sheet. */
export const CONSOLE_CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#1d2330;background:#f5f6f8;display:flex;flex-direction:column;height:100vh}
header{display:flex;gap:12px;align-items:center;padding:8px 16px;background:#1d2330;color:#fff}
header h1{font-size:16px;margin:0;flex:0 0 auto}
header #user{flex:1}header form{display:flex;gap:4px}header input{width:260px;padding:3px}
main{flex:1;display:grid;grid-template-columns:220px 1fr 480px;gap:8px;padding:8px;min-height:0}
section{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 12px;overflow:auto;display:flex;flex-direction:column}
section>*{flex-shrink:0}section>#messages{flex-shrink:1}
h2{font-size:14px;margin:4px 0 8px}h3{font-size:13px;margin:12px 0 4px}
ul{list-style:none;padding:0;margin:0}
#agents li button,#groups li button{width:100%;text-align:left;margin-bottom:4px}
#agents li button[aria-current=true],#groups li button[aria-current=true]{background:#dbe7ff}
#messages li[data-sender]::before{content:attr(data-sender) ": ";font-weight:600}
#messages{flex:1;list-style:none;padding:0;margin:0;overflow:auto}
#messages li{margin:4px 0;padding:6px 10px;border-radius:12px;max-width:80%;width:fit-content;white-space:pre-wrap}
#messages li.mine{margin-left:auto;background:#dbe7ff}
#messages li.theirs{background:#eef0f3}
#messages li.turn-stopped{margin:0 auto;background:none;color:#666;font-style:italic}
#messages li.failed{background:#fde2e1}
#messages li[data-reactions]::after{content:attr(data-reactions);margin-left:6px}
#messages li[data-state=streaming]{border:1px dashed #b8c0cc}
#messages .part-step,#messages .part-tool,#messages .part-source{display:block;font-size:.9em}
#messages .part-step[data-status=done] .step-mark{color:#1a7f37}
#messages .part-step[data-status=failed] .step-mark,#messages .tool-error{color:#b42318}
#messages .part-reasoning{color:#57606a;font-style:italic}
button.react{margin-left:6px;padding:0 4px;font-size:11px;opacity:.6}button.react::before{content:"+👍"}
li.artifact{display:flex;flex-direction:column;gap:4px;white-space:normal}li.artifact p{margin:0}
.artifact-actions{display:flex;gap:6px}li.file button{margin-left:4px}li.file a{margin-left:4px}li.artifact textarea{width:100%}
#composer{display:flex;gap:6px;margin-top:8px}#composer input{flex:1;padding:6px}
button{padding:4px 10px;border:1px solid #b8c0cc;border-radius:4px;background:#fff;cursor:pointer}
button:disabled{opacity:.5;cursor:default}
.muted{color:#6b7280}header .muted{color:#c7ccd6}
dl{display:grid;grid-template-columns:auto 1fr;gap:0 8px;margin:0;font-size:12px}dd{overflow-wrap:anywhere}dt{color:#6b7280}dd{margin:0}
.actions{display:grid;grid-template-columns:1fr auto;gap:6px;align-items:center;margin-top:8px}
.actions input{width:60px}.actions input.wide{width:120px}
tr.attempts ol{margin:0;padding-left:18px;color:#4b5563}td button{padding:0 4px;font-size:11px;margin-right:2px}
.curl{background:#1d2330;color:#d6f5d6;padding:6px;border-radius:4px;white-space:pre-wrap;word-break:break-all;font-size:12px;min-height:2em}
table{border-collapse:collapse;width:100%;font-size:12px}th,td{text-align:left;border-bottom:1px solid #eef0f3;padding:2px 4px}
ul.requests li{display:flex;flex-wrap:wrap;gap:4px;align-items:center;margin:2px 0}ul.requests pre{margin:0;font-size:11px;max-height:160px;overflow:auto}
.group-bar[hidden]{display:none}.group-bar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-bottom:6px;font-size:12px}.group-bar ul.members{display:flex;flex-wrap:wrap;gap:4px 10px;width:100%}#invite-code{font-family:monospace;font-weight:600}
label.file-pick{cursor:pointer;padding:4px 6px}label.file-pick input{display:none}
footer{padding:4px 16px;font-size:12px}#error{color:#b42318}
#agents li button::before{content:"";display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:6px;background:#c7ccd6;vertical-align:middle}
#agents li button[data-online=true]::before{background:#16a34a;box-shadow:0 0 0 2px #dcfce7}#agents li button[data-online=false]::before{background:#9ca3af}
[data-tone=ok]{color:#166534}[data-tone=warn]{color:#92400e}[data-tone=bad]{color:#b42318;font-weight:600}
dd[data-tone]::before{content:"● "}
.log-tools{display:flex;gap:4px;margin-bottom:4px}.log-tools input{flex:1;min-width:0;padding:2px 4px}
tr[hidden]{display:none}
.chat-head{display:flex;align-items:center;gap:8px}.chat-head h2{flex:1}
#log tbody tr{cursor:pointer}#log tbody tr:hover{background:#f5f8ff}
button.inspect{border:0;background:none;padding:0;color:#1d4ed8;text-align:left;font:inherit}button.inspect:hover{text-decoration:underline}
#chat-panel{position:relative}
.drawer{position:absolute;top:40px;left:4px;right:4px;bottom:4px;background:#fff;border:1px solid #dde1e7;border-radius:6px;box-shadow:0 8px 24px rgba(29,35,48,.18);padding:8px 12px;overflow:auto;z-index:10}
.drawer p{font-size:12px;margin:2px 0}.drawer[hidden]{display:none}.drawer h3{display:flex;justify-content:space-between;align-items:center;margin-top:4px}
.drawer h4{font-size:12px;margin:10px 0 2px;color:#374151;text-transform:uppercase;letter-spacing:.03em}
.drawer dd{font-family:ui-monospace,monospace;font-size:11px}
.drawer pre{margin:0;font-size:11px;background:#f5f6f8;padding:6px;border-radius:4px;white-space:pre-wrap;word-break:break-all;max-height:240px;overflow:auto}
.drawer ol,.drawer ul{margin:0;padding-left:18px;font-size:12px}.drawer ul.inspector-outcomes{list-style:disc}
ol.timeline{padding-left:0;list-style:none}ol.timeline li{border-left:3px solid #dde1e7;padding:4px 8px;margin:4px 0}
ol.timeline li[data-state=delivered]{border-left-color:#16a34a}ol.timeline li[data-state=failed]{border-left-color:#b42318}
.marks{display:inline-flex;flex-wrap:wrap;gap:4px}.mark{font-size:11px;border:1px solid #dde1e7;border-radius:10px;padding:0 6px}
.duplicate{white-space:nowrap}
.mark[data-duplicate=true],.duplicate{background:#fef3c7;border-color:#f59e0b;color:#92400e;font-size:11px;border-radius:10px;padding:0 6px}
${TOKEN_CSS}`;
