import { label, expectException } from "svc:test";
import { noulQuestion, choiceQuestion, scoreQuestion, isNoulAnswer, isChoiceAnswer, isScoreAnswer, TypeSafeError } from "@svc/typesafe";

export function main() {
  label("question builders produce the API's question objects");
  assert(JSON.stringify(noulQuestion("Is it urgent?")) === '{"type":"noul","instructions":"Is it urgent?"}');
  assert(JSON.stringify(noulQuestion("Urgent?", { true: "needs action today", false: "can wait" })) === '{"type":"noul","instructions":"Urgent?","criteria":{"true":"needs action today","false":"can wait"}}');
  const fromMap = choiceQuestion({ question: "Same person as `candidate`?", candidate: { name: "Ann" } }, new Map<string, string | null>([["yes", "same"], ["no", null]]));
  assert(JSON.stringify(fromMap) === '{"type":"choice","instructions":{"question":"Same person as `candidate`?","candidate":{"name":"Ann"}},"criteria":{"yes":"same","no":null}}', JSON.stringify(fromMap));
  assert(JSON.stringify(scoreQuestion("How bad?", ["fine", "bad"]).criteria) === '["fine","bad"]');

  label("question builders refuse what the API would refuse, naming the field");
  const one = expectException(() => choiceQuestion("Pick", { only: "one" }), "TypeSafeError") as TypeSafeError;
  assert(one.code === "invalid_argument" && one.status === 0 && one.message.includes("at least two"), one.message);
  assert(expectException(() => scoreQuestion("How bad?", ["only one"]), "TypeSafeError").message.includes("2 to 10"));
  assert(expectException(() => scoreQuestion("How bad?", Array.from({ length: 11 }, (_, i) => `level ${i}`)), "TypeSafeError").message.includes("2 to 10"));
  assert(expectException(() => noulQuestion("Q", { yes: "x" } as never), "TypeSafeError").message.includes("true and false"));
  expectException(() => noulQuestion(""), "TypeSafeError");
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert(expectException(() => noulQuestion(cyclic), "TypeSafeError").message.includes("JSON"));

  label("answer guards accept the documented shapes only");
  assert(isNoulAnswer({ type: "noul", noul: 0.73 }));
  assert(!isNoulAnswer({ type: "noul", noul: 1.5 }) && !isNoulAnswer({ type: "choice", noul: 0.5 }));
  assert(isChoiceAnswer({ type: "choice", choice: "billing", confidence: 0.9, probabilities: { billing: 0.9, other: 0.1 } }));
  assert(!isChoiceAnswer({ type: "choice", choice: "billing", probabilities: {} }));
  assert(isScoreAnswer({ type: "score", score: 1.6, confidence: 0.7, legend: { "0": "calm", "1": "angry" }, probabilities: { "0": 0.3, "1": 0.7 } }));
  assert(!isScoreAnswer({ type: "score", score: "high", confidence: 0.7, legend: {}, probabilities: {} }));
  assert(!isNoulAnswer(null) && !isChoiceAnswer([]) && !isScoreAnswer("score"));
}
