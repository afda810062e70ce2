import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-UNCDYCWS.js";import"./extension-chunk-JRUG4POS.js";import"./extension-chunk-ZJIPUD3O.js";import"./extension-chunk-N4CZYYWW.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-3X3WJ3KQ.js.map
