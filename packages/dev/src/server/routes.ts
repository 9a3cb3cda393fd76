/**
 * The route table of the reference server, one module per endpoint group.
 * Part 2 adds its groups here.
 *
 * @module
 */
import { artifactRoutes } from './artifacts/routes.js';
import { relayRoutes } from './artifacts/relay-routes.js';
import { governanceRoutes } from './agents/governance.js';
import { agentKeyRoutes } from './agents/key-routes.js';
import { agentRoutes } from './agents/routes.js';
import { webhookRoutes } from './agents/webhook.js';
import { codeLoginRoutes } from './auth/code-login.js';
import { conversationRoutes } from './conversations/routes.js';
import { messageRoutes } from './messages/routes.js';
import { passwordLoginRoutes } from './auth/password-login.js';
import { refreshRoutes } from './auth/refresh.js';
import { registrationRoutes } from './auth/register.js';
import type { ServerContext } from './context.js';
import type { ControlApi } from './control/control-api.js';
import { controlRoutes } from './control/routes.js';
import { consoleRoutes, servesConsole } from './console/routes.js';
import { deliveryRoutes } from './delivery/routes.js';
import { deviceRoutes } from './devices/routes.js';
import { groupRoutes } from './groups/routes.js';
import { Router } from './http/router.js';
import { grantRoutes } from './grants/routes.js';
import { keyRoutes } from './keys/routes.js';
import { manifestRoutes } from './manifests/routes.js';
import { migrationRoutes } from './migrations/routes.js';
import { objectRoutes } from './objects/routes.js';
import { fileRoutes } from './files/routes.js';
import { passkeyLoginRoutes } from './passkeys/login.js';
import { passkeyManagementRoutes } from './passkeys/register.js';
import { statusRoutes } from './presence/status-route.js';
import { streamRoutes } from './streams/routes.js';

/** Builds the route table; the control routes only in dev mode. */
export function buildRouter(ctx: ServerContext, control: ControlApi): Router {
  const router = new Router().add(
    ...registrationRoutes,
    ...passwordLoginRoutes,
    ...codeLoginRoutes,
    ...refreshRoutes,
    ...passkeyLoginRoutes,
    ...passkeyManagementRoutes,
    ...deviceRoutes,
    ...keyRoutes,
    ...agentRoutes,
    ...agentKeyRoutes,
    ...governanceRoutes,
    ...webhookRoutes,
    ...conversationRoutes,
    ...messageRoutes,
    ...deliveryRoutes,
    ...objectRoutes,
    ...artifactRoutes,
    ...relayRoutes,
    ...manifestRoutes,
    ...grantRoutes,
    ...streamRoutes,
    ...migrationRoutes,
    ...groupRoutes,
    ...fileRoutes,
    ...statusRoutes,
  );
  if (ctx.options.dev) router.add(...controlRoutes(control));
  if (servesConsole(ctx.options)) router.add(...consoleRoutes());
  return router;
}
