// TEMPORARY stub created by the infra engineer so `cdk synth` can bundle; replace freely. Not committed.
export const handler = async () => ({});
