/**
 * The arguments of each background tool, checked before any of the tool's code runs. The model is hostile or simply
 * wrong: a number where a path belongs, `edits` as one object, a missing `content`. Each schema states what Pi's own
 * tool declares (names, types, which are required; test/background/toolArguments.test.ts keeps them in step with
 * Pi's declarations), and a call that does not fit gets an error result naming every field at fault, so the model
 * can send the call again. Properties a schema does not know are dropped, as Pi's tools ignore them.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const TOOL_ARGUMENTS = {
  read: Schema.Struct({ path: Schema.String, offset: optional(Schema.Number), limit: optional(Schema.Number) }),
  find: Schema.Struct({ pattern: Schema.String, path: optional(Schema.String), limit: optional(Schema.Number) }),
  grep: Schema.Struct({
    pattern: Schema.String,
    path: optional(Schema.String),
    glob: optional(Schema.String),
    ignoreCase: optional(Schema.Boolean),
    literal: optional(Schema.Boolean),
    context: optional(Schema.Number),
    limit: optional(Schema.Number)
  }),
  write: Schema.Struct({ path: Schema.String, content: Schema.String }),
  edit: Schema.Struct({ path: Schema.String, edits: Schema.Array(Schema.Struct({ oldText: Schema.String, newText: Schema.String })) }),
  bash: Schema.Struct({ command: Schema.String, timeout: optional(Schema.Number) }),
  codemode: Schema.Struct({ code: Schema.String })
} as const

export type CheckedToolName = keyof typeof TOOL_ARGUMENTS

export type ArgumentCheck =
  | { readonly _tag: "Valid"; readonly args: Record<string, unknown> }
  | { readonly _tag: "Invalid"; readonly message: string }

const pathOf = (path: ReadonlyArray<PropertyKey>): string => (path.length === 0 ? "(the arguments)" : path.map(String).join("."))

/** The tool's arguments as its schema reads them, or the message the model gets back. */
export const checkToolArguments = (name: CheckedToolName, args: unknown): ArgumentCheck => {
  const schema: Schema.Schema<object, unknown> = TOOL_ARGUMENTS[name] as Schema.Schema<any, any>
  const decoded = Schema.decodeUnknownEither(schema, {
    errors: "all",
    onExcessProperty: "ignore"
  })(args)
  if (Either.isRight(decoded)) return { _tag: "Valid", args: decoded.right as Record<string, unknown> }
  const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
  const lines = issues.map((i) => `  - ${pathOf(i.path)}: ${i._tag === "Missing" ? "is required and missing" : i.message}`)
  return {
    _tag: "Invalid",
    message: `Invalid arguments for ${name}; nothing was run:\n${lines.join("\n")}\nCall ${name} again with arguments that match its parameters.`
  }
}
