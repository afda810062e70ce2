import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-ICB4YUTK.js";import"./extension-chunk-CIF4SF3X.js";import"./extension-chunk-IR3WPI2V.js";import"./extension-chunk-3O5R5Q3W.js";import"./extension-chunk-46XOJP5H.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-4GKWGZ2X.js.map
