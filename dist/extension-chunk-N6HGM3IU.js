import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
var e="Project memory: status | on | off | open | extract | dream | undo | list | show | search | forget | recalled | remember | context";export{e as a};
//# sourceMappingURL=extension-chunk-N6HGM3IU.js.map
