import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{join as r}from"node:path";var e=o=>r(o,"project-memory"),s=o=>r(o,"config.json"),i=o=>r(o,"projects"),g=(o,t)=>r(o,"memory-roots",t),c=o=>r(o,"locks"),a=o=>r(o,"queue"),p=".project-root",y="MEMORY.md";export{e as a,s as b,i as c,g as d,c as e,a as f,p as g,y as h};
//# sourceMappingURL=extension-chunk-MNVHR6LT.js.map
