/**
 * flameox.oracle-receipt.v1: the JSON an oracle may write to $FLAMEOX_ORACLE_RECEIPT.
 * The oracle process's exit status decides first; a receipt can refine a pass into fail,
 * inconclusive or unsupported and give a reason, but never turn a failed, crashed or
 * timed-out oracle into a pass. A receipt that is unreadable or names no known status
 * makes an otherwise passing oracle an error, so a broken oracle is never silent.
 */
import { existsSync, lstatSync, readFileSync } from "node:fs";
import type { ValidationStatus } from "../../domain/records.ts";

export const ORACLE_RECEIPT_VARIABLE = "FLAMEOX_ORACLE_RECEIPT";
const MAX_RECEIPT_BYTES = 64 * 1024;
const MAX_REASON_CHARS = 100;
const REFINED: Record<string, ValidationStatus> = {
  pass: "passed",
  fail: "failed",
  inconclusive: "inconclusive",
  unsupported: "unsupported",
};

export interface ReceiptVerdict {
  status: ValidationStatus;
  reason: string | null;
  receipt: Record<string, unknown> | null;
}

/**
 * The verdict of an oracle that ran to an exit code, given the receipt file it may have written.
 */
export function receiptVerdict(exitCode: number, receiptPath: string): ReceiptVerdict {
  const { present, receipt } = readReceipt(receiptPath);
  const reason =
    receipt && typeof receipt.reason === "string"
      ? receipt.reason.slice(0, MAX_REASON_CHARS)
      : null;
  if (exitCode !== 0)
    return { status: "failed", reason: reason ?? `oracle_exit_${exitCode}`, receipt };
  if (!present) return { status: "passed", reason: null, receipt: null };
  if (!receipt) return { status: "error", reason: "invalid_receipt", receipt: null };
  const refined = typeof receipt.status === "string" ? REFINED[receipt.status] : undefined;
  return refined
    ? { status: refined, reason, receipt }
    : { status: "error", reason: "invalid_receipt", receipt };
}

/** Whether the oracle left a receipt, and its object when it is a readable, bounded JSON object. */
function readReceipt(path: string): { present: boolean; receipt: Record<string, unknown> | null } {
  if (!existsSync(path)) return { present: false, receipt: null };
  const info = lstatSync(path);
  if (!info.isFile() || info.size > MAX_RECEIPT_BYTES) return { present: true, receipt: null };
  try {
    const value = JSON.parse(readFileSync(path, "utf8"));
    return {
      present: true,
      receipt: value !== null && typeof value === "object" && !Array.isArray(value) ? value : null,
    };
  } catch {
    return { present: true, receipt: null };
  }
}
