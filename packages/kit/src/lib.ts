// @svc/kit: what the curated Packages share, so each of them keeps only what is its own.
// Everything here is a pure helper or a factory bound to the caller's error class: the kit
// reads no secret, makes no request and checks no capability, so it requires nothing and a
// secret, a grant and a decision always belong to the consuming Package (the Slack
// operations send through the calls the Package hands them, after the Package's own check).
export { errorFields, type ErrorClass, type ErrorFields, type Json, type PrimitiveKeys, type ServiceErrorFields } from "./errors";
export { argumentChecks, type ArgumentChecks } from "./args";
export { authorization, compact, failureCode, jsonObject, queryString, retryAfter, type FailureCode } from "./http";
export { list, number, object, text, textOrNull } from "./json";
export {
  nextCursor,
  slackAnswers,
  slackArgumentChecks,
  slackErrorFields,
  toConversation,
  toIdentity,
  toMessage,
  toUser,
  type Conversation,
  type Identity,
  type Message,
  type MessageFile,
  type Page,
  type PostedMessage,
  type Reaction,
  type SlackAnswers,
  type SlackArgumentChecks,
  type SlackErrorExtras,
  type User,
} from "./slack";
export {
  slackOperations,
  type ListConversationsOptions,
  type ListMessagesOptions,
  type PageOptions,
  type Prepared,
  type SendOptions,
  type SlackCalls,
  type SlackOperations,
} from "./slack-operations";
export { googleAnswers, googleErrorFields, type GoogleAnswers, type GoogleErrorExtras, type GoogleService } from "./google";
