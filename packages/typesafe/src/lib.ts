import { check } from "svc:security";
import secrets from "svc:secrets";
import { post } from "svc:http";
import { TypeSafeError } from "./errors";

export { TypeSafeError };

// Fully literal: the build derives `host == "api.typesafe.ai" and path == "/v1/systemone"`.
const ENDPOINT = "https://api.typesafe.ai/v1/systemone";
const DEFAULT_MODEL = "jev-latest";
const MAX_SCORE_LEVELS = 10;

/** What is judged: plain text, or structured data (an object or a list) sent as JSON. */
export type State = string | Record<string, unknown> | unknown[];

/** The question: a sentence, or an object that puts the question in one field and the data it refers to in others. */
export type Instructions = string | Record<string, unknown> | unknown[];

/** Optional meaning of yes (`true`) and no (`false`) for a yes/no question. */
export interface NoulCriteria {
  true?: string;
  false?: string;
}

/** How one option of a choice is described: text, a list of examples, `{ includes, excludes }`, or null for "anything else". */
export type ChoiceCriterion = string | string[] | Record<string, unknown> | null;

/** One level of a score, from the low end of the scale to the high end. */
export type ScoreLevel = string | Record<string, unknown>;

/** A yes/no question. */
export interface NoulQuestion {
  type: "noul";
  instructions: Instructions;
  criteria?: NoulCriteria;
}

/** Pick one of some named options. */
export interface ChoiceQuestion {
  type: "choice";
  instructions: Instructions;
  /** Option name to its description (at least two options). */
  criteria: Record<string, ChoiceCriterion>;
}

/** Place the state on an ordered scale of levels. */
export interface ScoreQuestion {
  type: "score";
  instructions: Instructions;
  /** Level descriptions, lowest first (2 to 10 levels). */
  criteria: ScoreLevel[];
}

/** Any question. */
export type Question = NoulQuestion | ChoiceQuestion | ScoreQuestion;

/** Answer to a yes/no question. */
export interface NoulAnswer {
  type: "noul";
  /** Probability that the answer is yes, 0 to 1. */
  noul: number;
}

/** Answer to a choice question. */
export interface ChoiceAnswer {
  type: "choice";
  /** The most probable option. */
  choice: string;
  /** How certain the model is of `choice`, 0 to 1. */
  confidence: number;
  /** Probability of every option, by option name. */
  probabilities: Record<string, number>;
}

/** Answer to a score question. */
export interface ScoreAnswer {
  type: "score";
  /** Probability-weighted level, from 0 (first level) to the last level; may fall between levels. */
  score: number;
  /** How concentrated the distribution is, 0 to 1. */
  confidence: number;
  /** Level number (as text) to the level's description. */
  legend: Record<string, unknown>;
  /** Level number (as text) to its probability. */
  probabilities: Record<string, number>;
}

/** Any answer. */
export type Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer;

/** Options of the single-question functions. */
export interface JudgeOptions {
  /** Model to ask (default `jev-latest`). */
  model?: string;
}

/** Several questions about one state, answered in one request. */
export interface BatchRequest {
  state: State;
  /** Your key for each question; answers come back under the same keys. A `Map` is accepted too. */
  questions: Record<string, Question> | Map<string, Question>;
  /** Model to ask (default `jev-latest`). */
  model?: string;
}

/** The answers of a batch. */
export interface BatchResult {
  /** The model that answered. */
  model: string;
  /** One answer per question key. */
  answers: Record<string, Answer>;
  usage: { inputTokens: number | null; outputTokens: number | null };
  /** TypeSafe's request id, or null. */
  requestId: string | null;
}

const invalid = (message: string) => new TypeSafeError("invalid_argument", message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Map);

/** A JSON copy of a value, so what was validated is what is sent. */
function jsonCopy(value: unknown, field: string): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    throw invalid(`${field} must be JSON-serialisable (no cycles or BigInt)`);
  }
  if (text === undefined) throw invalid(`${field} must be JSON-serialisable`);
  return JSON.parse(text) as unknown;
}

function stateOf(state: unknown): State {
  if (typeof state === "string") {
    if (state.trim() === "") throw invalid("state must not be empty");
    return state;
  }
  if (state instanceof Map) return jsonCopy(Object.fromEntries(state), "state") as State;
  if (typeof state === "object" && state !== null) return jsonCopy(state, "state") as State;
  throw invalid("state must be a string, an object or a list");
}

function instructionsOf(instructions: unknown): Instructions {
  if (typeof instructions === "string") {
    if (instructions.trim() === "") throw invalid("instructions must not be empty");
    return instructions;
  }
  if (typeof instructions === "object" && instructions !== null && !(instructions instanceof Map)) return jsonCopy(instructions, "instructions") as Instructions;
  throw invalid("instructions must be a string, an object or a list");
}

/** Records and Maps alike, as a plain object with string keys. */
function entriesOf(value: unknown, field: string): Array<[string, unknown]> {
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [String(k), v]);
  if (isObject(value)) return Object.entries(value);
  throw invalid(`${field} must be an object (or a Map)`);
}

/**
 * A yes/no question, validated (for `batch`).
 * @param instructions The question.
 * @param criteria What yes (`true`) and no (`false`) mean, optional.
 * @returns The question object.
 */
export function noulQuestion(instructions: Instructions, criteria?: NoulCriteria | null): NoulQuestion {
  const question: NoulQuestion = { type: "noul", instructions: instructionsOf(instructions) };
  if (criteria != null) {
    const out: NoulCriteria = {};
    for (const [key, value] of entriesOf(criteria, "criteria")) {
      if (key !== "true" && key !== "false") throw invalid(`criteria of a yes/no question has only the keys true and false (got ${key})`);
      if (typeof value !== "string" || value.trim() === "") throw invalid(`criteria.${key} must be a non-empty string`);
      out[key] = value;
    }
    question.criteria = out;
  }
  return question;
}

/**
 * A choice question, validated (for `batch`).
 * @param instructions The question.
 * @param criteria Option name to its description (at least two options; an object or a Map).
 * @returns The question object.
 */
export function choiceQuestion(instructions: Instructions, criteria: Record<string, ChoiceCriterion> | Map<string, ChoiceCriterion>): ChoiceQuestion {
  const entries = entriesOf(criteria, "criteria");
  if (entries.length < 2) throw invalid("criteria of a choice needs at least two options");
  const out: Record<string, ChoiceCriterion> = {};
  for (const [name, value] of entries) {
    if (name.trim() === "") throw invalid("criteria option names must not be empty");
    if (value !== null && typeof value !== "string" && !Array.isArray(value) && !isObject(value)) throw invalid(`criteria.${name} must be a description, a list of examples, an object or null`);
    out[name] = value === null ? null : (jsonCopy(value, `criteria.${name}`) as ChoiceCriterion);
  }
  return { type: "choice", instructions: instructionsOf(instructions), criteria: out };
}

/**
 * A score question, validated (for `batch`).
 * @param instructions The question.
 * @param criteria Level descriptions, lowest first (2 to 10).
 * @returns The question object.
 */
export function scoreQuestion(instructions: Instructions, criteria: ScoreLevel[]): ScoreQuestion {
  if (!Array.isArray(criteria) || criteria.length < 2 || criteria.length > MAX_SCORE_LEVELS) throw invalid(`criteria of a score must be a list of 2 to ${MAX_SCORE_LEVELS} level descriptions, lowest first`);
  const levels = criteria.map((level, i) => {
    if (typeof level === "string" && level.trim() !== "") return level;
    if (isObject(level)) return jsonCopy(level, `criteria[${i}]`) as ScoreLevel;
    throw invalid(`criteria[${i}] must be a non-empty description`);
  });
  return { type: "score", instructions: instructionsOf(instructions), criteria: levels };
}

function questionOf(key: string, value: unknown): Question {
  if (!isObject(value)) throw invalid(`questions.${key} must be a question object (see noulQuestion, choiceQuestion, scoreQuestion)`);
  const type = value.type;
  if (type === "noul") return noulQuestion(value.instructions as Instructions, value.criteria as NoulCriteria | null);
  if (type === "choice") return choiceQuestion(value.instructions as Instructions, value.criteria as Record<string, ChoiceCriterion>);
  if (type === "score") return scoreQuestion(value.instructions as Instructions, value.criteria as ScoreLevel[]);
  throw invalid(`questions.${key}.type must be noul, choice or score`);
}

function modelOf(model: unknown): string {
  if (model == null) return DEFAULT_MODEL;
  if (typeof model !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/.test(model)) throw invalid("model must be a model name such as jev-latest");
  return model;
}

function optionsModel(options: unknown): string {
  if (options == null) return DEFAULT_MODEL;
  if (!isObject(options)) throw invalid("options must be an object");
  return modelOf(options.model);
}

const inUnit = (v: unknown): v is number => typeof v === "number" && v >= 0 && v <= 1;
const numberMap = (v: unknown): v is Record<string, number> => isObject(v) && Object.values(v).every((n) => typeof n === "number");

/**
 * Whether a value is a yes/no answer.
 * @param value Any value.
 * @returns True for `{ type: "noul", noul }` with `noul` from 0 to 1.
 */
export function isNoulAnswer(value: unknown): value is NoulAnswer {
  return isObject(value) && value.type === "noul" && inUnit(value.noul);
}

/**
 * Whether a value is a choice answer.
 * @param value Any value.
 * @returns True for `{ type: "choice", choice, confidence, probabilities }`.
 */
export function isChoiceAnswer(value: unknown): value is ChoiceAnswer {
  return isObject(value) && value.type === "choice" && typeof value.choice === "string" && inUnit(value.confidence) && numberMap(value.probabilities);
}

/**
 * Whether a value is a score answer.
 * @param value Any value.
 * @returns True for `{ type: "score", score, confidence, legend, probabilities }`.
 */
export function isScoreAnswer(value: unknown): value is ScoreAnswer {
  return isObject(value) && value.type === "score" && typeof value.score === "number" && inUnit(value.confidence) && isObject(value.legend) && numberMap(value.probabilities);
}

const bad = (what: string) => new TypeSafeError("invalid_response", `TypeSafe answered with an unexpected body: ${what}`);

function header(headers: Map<string, string> | Record<string, string> | null | undefined, name: string): string | null {
  if (headers == null) return null;
  const value = headers instanceof Map ? headers.get(name) : headers[name];
  return typeof value === "string" ? value : null;
}

function httpError(status: number, headers: Map<string, string>, body: string): TypeSafeError {
  let detail = "";
  try {
    const parsed = JSON.parse(body) as unknown;
    if (isObject(parsed)) {
      const e = parsed.error;
      detail = typeof e === "string" ? e : isObject(e) && typeof e.message === "string" ? e.message : typeof parsed.message === "string" ? parsed.message : typeof parsed.detail === "string" ? parsed.detail : "";
    }
  } catch {
    // Not JSON: the status says enough.
  }
  const retry = Number(header(headers, "retry-after") ?? NaN);
  const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
  return new TypeSafeError(code, `TypeSafe answered HTTP ${status}${detail ? ": " + detail : ""}`, status, {
    retryAfterSeconds: Number.isFinite(retry) ? retry : null,
    requestId: header(headers, "x-typesafe-request-id"),
  });
}

function apiKey(): string {
  const key = secrets.get("TYPESAFE_AI_KEY");
  if (key == null || key === "") throw new TypeSafeError("missing_credentials", "TYPESAFE_AI_KEY is not bound; declare it in the Blueprint's secrets and give it a value");
  return key;
}

/** One POST; every answer is checked against the type of its question. */
function evaluate(body: { state: State; model: string; questions: Record<string, Question> }, key: string): BatchResult {
  const r = post(ENDPOINT, body, { authorization: "Bearer " + key, accept: "application/json" });
  if (!r.ok) throw httpError(r.status, r.headers, r.body);
  let json: unknown;
  try {
    json = r.json();
  } catch {
    throw bad("not JSON");
  }
  if (!isObject(json) || !isObject(json.answers)) throw bad("answers is missing");
  const answers: Record<string, Answer> = {};
  for (const [name, question] of Object.entries(body.questions)) {
    const answer = json.answers[name];
    const fits = question.type === "noul" ? isNoulAnswer(answer) : question.type === "choice" ? isChoiceAnswer(answer) : isScoreAnswer(answer);
    if (!fits) throw bad(`no ${question.type} answer for question ${JSON.stringify(name)}`);
    answers[name] = answer as Answer;
  }
  const usage = isObject(json.usage) ? json.usage : {};
  return {
    model: typeof json.model === "string" ? json.model : body.model,
    answers,
    usage: {
      inputTokens: typeof usage.input_tokens === "number" ? usage.input_tokens : null,
      outputTokens: typeof usage.output_tokens === "number" ? usage.output_tokens : null,
    },
    requestId: header(r.headers, "x-typesafe-request-id"),
  };
}

/**
 * Ask several questions about one state in one request.
 * @param request The state, the questions by your own keys (an object or a Map) and optionally the model.
 * @returns One answer per key, the model and the token usage.
 * @capability typesafe.ai/systemone {}
 */
export function batch(request: BatchRequest): BatchResult {
  if (!isObject(request)) throw invalid("batch: request must be an object { state, questions, model? }");
  const { state, questions, model } = request;
  const entries = entriesOf(questions, "questions");
  if (entries.length === 0) throw invalid("questions must hold at least one question");
  const checked: Record<string, Question> = {};
  for (const [name, question] of entries) {
    if (name.trim() === "") throw invalid("question keys must not be empty");
    checked[name] = questionOf(name, question);
  }
  const body = { state: stateOf(state), model: modelOf(model), questions: checked };
  check("typesafe.ai/systemone", {});
  const key = apiKey();
  return evaluate(body, key);
}

/**
 * Ask a yes/no question about a state.
 * @param state What is judged (text, or an object or list).
 * @param instructions The question.
 * @param criteria What yes (`true`) and no (`false`) mean, optional.
 * @param options The model.
 * @returns The probability that the answer is yes, 0 to 1.
 * @capability typesafe.ai/systemone {}
 */
export function noul(state: State, instructions: Instructions, criteria?: NoulCriteria | null, options?: JudgeOptions | null): number {
  const body = { state: stateOf(state), model: optionsModel(options), questions: { answer: noulQuestion(instructions, criteria) as Question } };
  check("typesafe.ai/systemone", {});
  const key = apiKey();
  return (evaluate(body, key).answers.answer as NoulAnswer).noul;
}

/**
 * Pick the option that best fits a state.
 * @param state What is judged (text, or an object or list).
 * @param instructions The question.
 * @param criteria Option name to its description (at least two; an object or a Map).
 * @param options The model.
 * @returns The chosen option, its confidence and every option's probability.
 * @capability typesafe.ai/systemone {}
 */
export function choice(state: State, instructions: Instructions, criteria: Record<string, ChoiceCriterion> | Map<string, ChoiceCriterion>, options?: JudgeOptions | null): ChoiceAnswer {
  const body = { state: stateOf(state), model: optionsModel(options), questions: { answer: choiceQuestion(instructions, criteria) as Question } };
  check("typesafe.ai/systemone", {});
  const key = apiKey();
  return evaluate(body, key).answers.answer as ChoiceAnswer;
}

/**
 * Place a state on an ordered scale.
 * @param state What is judged (text, or an object or list).
 * @param instructions The question.
 * @param criteria Level descriptions, lowest first (2 to 10).
 * @param options The model.
 * @returns The score (0 = first level), its confidence and each level's probability.
 * @capability typesafe.ai/systemone {}
 */
export function score(state: State, instructions: Instructions, criteria: ScoreLevel[], options?: JudgeOptions | null): ScoreAnswer {
  const body = { state: stateOf(state), model: optionsModel(options), questions: { answer: scoreQuestion(instructions, criteria) as Question } };
  check("typesafe.ai/systemone", {});
  const key = apiKey();
  return evaluate(body, key).answers.answer as ScoreAnswer;
}
