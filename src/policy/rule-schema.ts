// The shape of one permission rule and of `default`, declared once (zod): the rule parser
// reads its accepted keys and actions from here, the Blueprint schema embeds it.
import { z } from 'zod';

export const ACTIONS = ['allow', 'deny', 'ask-human'] as const;
export const ActionSchema = z.enum(ACTIONS);

export const RuleSchema = z.strictObject({
  name: z.string().optional().meta({ description: 'Optional label, unique within its caller\'s list; cited in decision records' }),
  capability: z.string().meta({ description: 'The exact capability name (no wildcards)' }),
  filter: z.string().nullable().optional().meta({ description: 'A filter over the call\'s context fields; may use ${vars.NAME} (the filter language\'s own grammar)' }),
  action: ActionSchema.meta({ description: 'What a matching rule decides' }),
});

/** The rule keys, in the order messages list them. */
export const RULE_KEYS: readonly string[] = Object.keys(RuleSchema.shape);
