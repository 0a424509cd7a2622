/**
 * A message's text as written, line breaks kept; roleplay actions between asterisks
 * (`*smiles*`) are set in italics, the way characters write them.
 */
export function MessageText({ text }: { text: string }) {
  const parts = text.split(/(\*[^*\n]+\*)/g);
  return (
    <>
      {parts.map((part, index) =>
        part.length > 2 && part.startsWith('*') && part.endsWith('*') ? <em key={index}>{part.slice(1, -1)}</em> : part,
      )}
    </>
  );
}
