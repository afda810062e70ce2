import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{if as o}from"./pm-chunk-chunk-H7JGJB5H.js";var e=new Map,m=t=>o(()=>{e.set(t.memoryRootDir,t)}),i=()=>e.size>0,n=()=>{let t=[...e.values()];return e.clear(),t};export{m as a,i as b,n as c};
//# sourceMappingURL=pm-chunk-chunk-CSYRUVJC.js.map
