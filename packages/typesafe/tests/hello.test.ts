import { label } from "svc:test";
import { hello } from "@svc/typesafe";

export function main() {
  label("hello greets by name");
  assert(hello("svc") === "Hello, svc!");
}
