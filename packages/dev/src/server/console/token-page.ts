/**
 * The dev console's agent administration markup: the **Add agent** form and
 * the token hand-over box (agents panel), and the token buttons with their
 * inline confirmation (service panel). The behaviour is
 * `packages/dev/src/console/agent-admin.ts`. No token is ever written into this markup.
 *
 * @module
 */

/** The agents panel's form and hand-over box. */
export const ADD_AGENT_HTML = `<form id="add-agent"><input id="agent-name" maxlength="64" autocomplete="off" placeholder="New agent name"> <button id="add-agent-button" type="submit">Add agent</button></form>
    <p id="add-agent-reason" class="reason" role="status" hidden></p>
    <div id="token-handover" hidden>
      <p id="token-handover-text"></p>
      <div class="token-buttons"><button id="token-download" type="button">Download env file</button> <button id="token-copy" type="button">Copy token</button> <button id="token-forget" type="button">Forget token</button></div>
      <p class="muted">Run your bot with it:</p>
      <pre id="token-run" class="curl"></pre>
    </div>
    <p id="token-note" class="muted" aria-live="polite"></p>`;

/** The service panel's token buttons and confirmation. */
export const TOKEN_ACTIONS_HTML = `<div id="token-actions" class="token-buttons">
      <span class="muted">Agent token</span>
      <button id="token-regenerate" type="button">Regenerate</button>
      <button id="token-emergency" type="button">Emergency regenerate</button>
      <button id="token-revoke" type="button">Revoke</button>
    </div>
    <div id="token-confirm" hidden><span id="token-confirm-text"></span> <button id="token-confirm-yes" type="button">Confirm</button> <button id="token-confirm-no" type="button">Cancel</button></div>`;

/** Their style. */
export const TOKEN_CSS = `
#add-agent{display:flex;gap:4px;margin:8px 0}#add-agent input{flex:1;min-width:0;padding:3px}
#token-handover{background:#fff8e1;border:1px solid #f0d58c;border-radius:4px;padding:6px;margin-bottom:6px}#token-handover p{margin:2px 0}
.token-buttons{display:flex;flex-wrap:wrap;gap:4px;align-items:center;margin-top:8px}
#token-confirm{background:#fde2e1;border-radius:4px;padding:6px;margin-top:4px}
#token-run{white-space:pre;word-break:normal;overflow-x:auto}
.duplicate{background:#fff1c2;color:#7a4b00;border-radius:3px;padding:0 4px;font-size:11px}
.reason{background:#eef4ff;border-left:3px solid #3b6fd8;padding:4px 6px;margin:4px 0;font-size:12px;color:#1d2330}
`;
