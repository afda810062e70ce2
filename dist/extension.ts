// Pi's entry for pi-project-memory (written by scripts/build.mjs; see extension/index.ts).
import * as host from "@earendil-works/pi-coding-agent"
import { projectMemory } from "./extension.js"

export default projectMemory(host)
