/** The background subsystem's layer graph: BackgroundSession over the Extractor and the Dream, the writer and the bash guard. */
import * as Layer from "effect/Layer"
import { BashGuard } from "../BashGuard.ts"
import { MemoryWriter } from "../MemoryWriter.ts"
import { BackgroundSession } from "./BackgroundSession.ts"
import { Dream } from "./Dream.ts"
import { DreamAttempt } from "./DreamAttempt.ts"
import { Extractor } from "./Extractor.ts"
import { SessionScanner } from "./SessionScanner.ts"

/**
 * The bash parser loads when a task first runs bash, not at session start; one that cannot load refuses every
 * command instead of taking the whole extension down.
 */
const guardLayer = BashGuard.layerOnFirstUse

/** The writer and the guard; the journal is the core's. */
const writerAndGuard = Layer.merge(MemoryWriter.layer, guardLayer)

export const extractorLayer = Extractor.layer.pipe(Layer.provide(writerAndGuard))

/** The dream task and its attempt rules (`dream.lock`, `lastDreamAt`, the session-directory scan). */
export const dreamLayer = Layer.merge(
  Dream.layer.pipe(Layer.provide(writerAndGuard)),
  DreamAttempt.layer.pipe(Layer.provide(SessionScanner.layer))
)

export const backgroundLayer = BackgroundSession.layer.pipe(Layer.provide(Layer.merge(extractorLayer, dreamLayer)))
