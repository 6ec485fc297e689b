// Reading loosely typed service JSON into the small shapes the Packages return.
import type { Json } from "./errors";

/**
 * The value when it is a plain object, else `{}`.
 * @param value Any JSON value.
 * @returns An object.
 */
export function object(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
}

/**
 * The value when it is a string, else `fallback`.
 * @param value Any JSON value.
 * @param fallback What a non-string becomes (default "").
 * @returns A string.
 */
export function text(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

/**
 * The value when it is a non-empty string, else null.
 * @param value Any JSON value.
 * @returns A string or null.
 */
export function textOrNull(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * The value when it is a finite number, else `fallback`.
 * @param value Any JSON value.
 * @param fallback What anything else becomes (default 0).
 * @returns A number.
 */
export function number(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/**
 * The value when it is an array, else `[]`.
 * @param value Any JSON value.
 * @returns An array.
 */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
