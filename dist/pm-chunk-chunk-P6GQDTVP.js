import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{D as m,E as o,c as i,l as a,m as d,o as t,s as c,w as h}from"./pm-chunk-chunk-W4IN6ZHF.js";import{V as s}from"./pm-chunk-chunk-H7JGJB5H.js";import{createHash as g}from"node:crypto";var I="held",p=t.pipe(m(/^[0-9a-f]{8}$/)),l=h({v:d(1),id:p,file:t,content:t,source:t,reason:t,at:t,task:t,session:c(t)}),S=a(o(l)),f=i(o(l)),y=e=>`${f(e)}
`,w=e=>{let n=S(e.trim());return s(n)?n.right:void 0},v=(e,n,r)=>g("sha256").update(`${e}
${r}
${n}`).digest("hex").slice(0,8),D=e=>`${e}.json`,E=e=>/^[0-9a-f]{8}\.json$/.test(e),x="it is held for the person's review",b=(e,n,r)=>`${e} was not saved; ${x} (item ${r}) and is not memory unless they approve it. Why: ${n}. Do not retry it, and do not add an index line for it.`,F=(e,n,r)=>`${e} was not saved: ${n}. It would be held for the person's review, but ${r} writes already wait there, so it is refused. Do not retry it.`;export{I as a,y as b,w as c,v as d,D as e,E as f,x as g,b as h,F as i};
//# sourceMappingURL=pm-chunk-chunk-P6GQDTVP.js.map
