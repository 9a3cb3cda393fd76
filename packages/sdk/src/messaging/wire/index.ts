/**
 * Wire schemas (zod, service field names) of the answers the clients read.
 *
 * @module
 */
export {
  AgentViewSchema,
  CreatedAgentSchema,
  GovernanceSchema,
  TokenRegenerationSchema,
  TokenRevocationSchema,
  WebhookRegistrationSchema,
  WebhookStateSchema,
  type AgentView,
  type CreatedAgent,
  type Governance,
  type TokenRegeneration,
  type TokenRevocation,
  type WebhookRegistration,
  type WebhookState,
} from './agents.js';
export { SendCodeAnswerSchema, TokenAnswerSchema, type SendCodeAnswer, type TokenAnswer } from './auth.js';
export {
  GroupDetailSchema,
  GroupInviteSchema,
  GroupKeyRotationSchema,
  GroupLeaveSchema,
  GroupListSchema,
  GroupMemberKeysSchema,
  GroupMemberSchema,
  GroupRemovalSchema,
  GroupViewSchema,
  type GroupDetail,
  type GroupInviteView,
  type GroupMember,
  type GroupMemberKeys,
  type GroupView,
} from './groups.js';
export {
  ConversationDetailSchema,
  DirectConversationDetailSchema,
  ConversationListSchema,
  ConversationMemberSchema,
  ConversationSchema,
  SentMessageSchema,
  StoredMessageListSchema,
  StoredMessageSchema,
  UserMessageFrameSchema,
  type Conversation,
  type ConversationDetail,
  type ConversationMember,
  type DirectConversationDetail,
  type SentMessage,
  type StoredMessage,
  type UserMessageFrame,
} from './conversations.js';
export {
  AgentKeyViewSchema,
  KeyChallengeAnswerSchema,
  KeyCheckAnswerSchema,
  KeyIdSchema,
  PrincipalKeysSchema,
  PublicKeyB64Schema,
  SigningPublicKeyB64Schema,
  RetiredPublicKeySchema,
  type AgentKeyView,
  type KeyChallengeAnswer,
  type KeyCheckAnswer,
  type PrincipalKeys,
  type RetiredPublicKey,
} from './keys.js';
