/**
 * The writer's refusal to publish: the file is unchanged. Apart from layers/writes/MemoryWriter.ts so that what only needs
 * the error (the journal's hook) does not load the writer: \`pm scan\` loads the journal with the core, and must not
 * load the writer.
 */
import * as Schema from "effect/Schema"
import { FsReason, fsReasonText } from "./FsError.ts"

export class PublishFailed extends Schema.TaggedError<PublishFailed>()("PublishFailed", {
  path: Schema.String,
  op: Schema.String,
  reason: FsReason,
  detail: Schema.String
}) {
  override get message(): string {
    return `Could not ${this.op} ${this.path}: ${fsReasonText(this.reason, this.detail)}. The file is unchanged.`
  }
}
