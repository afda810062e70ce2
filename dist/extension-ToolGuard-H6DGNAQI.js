import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-HZO3TKYI.js";import"./extension-chunk-OD7SJD2M.js";import"./extension-chunk-KJ5U6MNE.js";import"./extension-chunk-D7IURK5U.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-H6DGNAQI.js.map
