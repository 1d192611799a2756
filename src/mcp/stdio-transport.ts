/**
 * The stdio transport, with JSON-RPC's own error answers where the SDK's transport has
 * none: a line that is not JSON gets -32700 (parse error; the SDK only logs it and the
 * client waits forever), a message that is not JSON-RPC gets -32600, and a request whose
 * params do not fit the method (e.g. tools/call with `arguments` that is not an object)
 * gets -32602 (invalid params) instead of the SDK's -32603 internal error.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";

const REQUESTS = [
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
];
const BY_METHOD = new Map(REQUESTS.map((schema) => [schema.shape.method.value as string, schema]));

type RequestId = string | number | null;

export class JsonRpcStdioTransport extends StdioServerTransport {
  private pending = "";

  constructor() {
    super();
    // Lines are split here instead of in the SDK's read buffer, so that each bad line can be
    // answered; start() attaches this handler to stdin.
    (this as unknown as { _ondata: (chunk: Buffer) => void })._ondata = (chunk: Buffer) => {
      this.pending += chunk.toString("utf8");
      let newline = this.pending.indexOf("\n");
      while (newline !== -1) {
        const line = this.pending.slice(0, newline).replace(/\r$/, "");
        this.pending = this.pending.slice(newline + 1);
        if (line.trim().length > 0) this.handleLine(line);
        newline = this.pending.indexOf("\n");
      }
    };
  }

  private handleLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      void this.answer(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
      return;
    }
    const id = requestId(value);
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) {
      void this.answer(id, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    const method = (value as { method?: unknown }).method;
    const schema = typeof method === "string" && id !== null ? BY_METHOD.get(method) : undefined;
    if (schema !== undefined) {
      const checked = schema.safeParse(value);
      if (!checked.success) {
        const issues = checked.error.issues
          .map((i) => `${i.path.join(".")}: ${i.message}`)
          .join("; ");
        void this.answer(id, ErrorCode.InvalidParams, `Invalid params for ${method}: ${issues}`);
        return;
      }
    }
    this.onmessage?.(message.data as JSONRPCMessage);
  }

  private answer(id: RequestId, code: number, message: string): Promise<void> {
    return this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

function requestId(value: unknown): RequestId {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
