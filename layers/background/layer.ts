/** The background subsystem's layer graph: BackgroundSession over the Extractor, the writer and the bash guard. */
import * as Layer from "effect/Layer"
import { rejected } from "../../src/bash/classify.ts"
import { BashGuard } from "../BashGuard.ts"
import { Journal } from "../Journal.ts"
import { MemoryWriter } from "../MemoryWriter.ts"
import { BackgroundSession } from "./BackgroundSession.ts"
import { Extractor } from "./Extractor.ts"

/** A bash parser that cannot load refuses every command instead of taking the whole extension down. */
const guardLayer = BashGuard.layer.pipe(
  Layer.catchAll((e) => BashGuard.layerConstant(rejected(`the bash checker is unavailable (${e.message})`)))
)

export const extractorLayer = Extractor.layer.pipe(Layer.provide(Layer.mergeAll(MemoryWriter.layer, guardLayer, Journal.layer)))

export const backgroundLayer = BackgroundSession.layer.pipe(Layer.provide(extractorLayer))
