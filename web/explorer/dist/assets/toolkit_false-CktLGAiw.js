const e={},o="graphql-ws",t="@graphiql/toolkit";throw new Error(`Could not resolve "${o}" imported by "${t}".`);export{e as default};
