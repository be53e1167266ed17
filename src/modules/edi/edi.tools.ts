import { z } from 'zod';
import { CREATES, defineTool, READ_ONLY, type ToolDefinition } from '../../mcp/tool.js';
import { listMessagesQuery, messageDetailSchema, messageSummarySchema, submitResultSchema } from './edi.schemas.js';
import type { EdiService } from './edi.service.js';

/** MCP door onto EdiService: the same functions the REST routes call. */
export function ediTools(edi: EdiService): ToolDefinition[] {
  return [
    defineTool({
      name: 'edi_submit',
      title: 'Submit an X12 interchange',
      description:
        'Submit one raw X12 interchange (ISA ... IEA) from one of your trading partners, addressed to your organisation. 850 purchase orders ' +
        'become orders; the answer lists each transaction set with its status (accepted, partial, rejected) and the 997 acknowledgment per ' +
        'functional group as X12 text. X12 syntax errors fail with their segment positions; resending the same interchange returns the ' +
        'stored answer, and the same ISA13 with different content fails with a conflict.',
      scope: 'edi:write',
      rest: 'POST /v1/edi',
      input: z.object({ x12: z.string().min(1).describe('the interchange text, starting with ISA') }),
      output: submitResultSchema,
      annotations: CREATES,
      handler: (auth, input) => edi.submit(auth, Buffer.from(input.x12, 'utf8')),
    }),
    defineTool({
      name: 'edi_messages_list',
      title: 'List EDI messages',
      description:
        'List EDI interchanges received and documents sent (997, 855, 856, 810), newest first, with status, partner and delivery state. ' +
        'Filter by `direction` (inbound, outbound), `type` (850, 855, 856, 810, 997) and `partner` (id or name); pass `next_cursor` back as `cursor`.',
      scope: 'edi:read',
      rest: 'GET /v1/edi/messages',
      input: listMessagesQuery,
      output: z.object({ messages: z.array(messageSummarySchema), next_cursor: z.string().nullable() }),
      annotations: READ_ONLY,
      handler: (auth, input) => edi.listMessages(auth, input),
    }),
    defineTool({
      name: 'edi_messages_get',
      title: 'Get an EDI message',
      description: 'Get one EDI message by id (msg_...): its summary, the status and errors of each transaction set, and the raw X12.',
      scope: 'edi:read',
      rest: 'GET /v1/edi/messages/:id',
      input: z.object({ id: z.string().min(1).max(200) }),
      output: z.object({ message: messageDetailSchema }),
      annotations: READ_ONLY,
      handler: async (auth, input) => ({ message: await edi.getMessage(auth, input.id) }),
    }),
  ];
}
