import * as Data from "effect/Data"
/** The typed failure of a service whose live implementation arrives in a later issue. Nothing calls those yet. */
export class NotImplementedYet extends Data.TaggedError("NotImplementedYet")<{
  readonly service: string
}> {
  override get message(): string {
    return `${this.service} is not implemented yet`
  }
}
