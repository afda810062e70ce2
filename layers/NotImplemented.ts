/** The typed failure of a service whose live implementation arrives in a later issue. Nothing calls those yet. */
import * as Schema from "effect/Schema"
export class NotImplementedYet extends Schema.TaggedError<NotImplementedYet>()("NotImplementedYet", {
  service: Schema.String
}) {
  override get message(): string {
    return `${this.service} is not implemented yet`
  }
}
