// Argument checks of @svc/slack-bot: each returns the normalised value or throws
// SlackError("invalid_argument") naming the parameter and what is accepted, before any
// permission check or request. The checks both Slack Packages share come from @svc/kit.
import { slackArgumentChecks } from "@svc/kit";
import { SlackError } from "./client";

export const { blocksArg, channelIdArg, emojiArg, flagArg, limitArg, optionsArg, pageTokenArg, sendExtras, textArg, tsArg, typesArg, userIdArg, userIdsArg } = slackArgumentChecks(SlackError);
